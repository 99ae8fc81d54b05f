/**
 * `tool-curator learned …`: the operator's view of learning from use (learning.ts). `list`
 * shows the (query, tool) pairs per persona and tenant with their distinct users, uses and
 * last use, and whether they are learned (enough users, within the horizon) or still
 * gathering evidence; `forget` deletes the evidence of the pairs matching the given
 * persona, tenant, tool and query. A running gateway drops a forgotten pair at its next
 * refresh (`curator.learning.refresh_seconds`) or catalog change.
 */
import { parseArgs } from 'node:util';
import type { LearningConfig } from '../config/schema.js';
import { stdio, table, type CommandIO } from '../guards/commandIO.js';
import type { LearnedPart } from '../store/types.js';
import { HORIZON_HALF_LIVES } from '../learning/learning.js';

export const LEARNED_USAGE =
  'usage: tool-curator learned list [--persona P] [--tenant T] [--tool T] [--all] [--json] | forget (--persona P | --tenant T | --tool T | --query Q)… | forget --all';

const DAY_MS = 86_400_000;

export interface LearnedRow {
  persona: string;
  tenant: string;
  query: string;
  tool: string;
  users: number;
  uses: number;
  /** Epoch ms of the latest use. */
  lastAt: number;
  /** Whether the curator ranks with it (at least min_users users); otherwise it is still gathering evidence. */
  learned: boolean;
}

/**
 * `learned list`: pairs from the horizon (HORIZON_HALF_LIVES half-lives), learned ones
 * only unless `--all`; `learned forget`: deletes matching evidence (`--all` for every
 * row; without a filter it refuses, so a typo cannot wipe the store).
 * @returns 0 on success, 2 on a usage error.
 */
export async function learnedCommand(args: string[], store: LearnedPart, settings: LearningConfig, now = Date.now(), io: CommandIO = stdio): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { persona: { type: 'string' }, tenant: { type: 'string' }, tool: { type: 'string' }, query: { type: 'string' }, all: { type: 'boolean' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: false,
  });
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const filter = { persona: str(values.persona), tenant: str(values.tenant), tool: str(values.tool), query: str(values.query) };
  const [verb] = positionals;
  if (verb === 'list' || verb === undefined) {
    const since = now - HORIZON_HALF_LIVES * settings.half_life_days * DAY_MS;
    const rows: LearnedRow[] = [];
    for (const { persona, tenant } of await store.scopes({ since })) {
      if ((filter.persona !== undefined && persona !== filter.persona) || (filter.tenant !== undefined && tenant !== filter.tenant)) continue;
      for (const p of await store.pairs({ persona, tenant, minUsers: values.all ? 1 : settings.min_users, since })) {
        if (filter.tool !== undefined && p.tool !== filter.tool) continue;
        rows.push({ persona, tenant, query: p.query, tool: p.tool, users: p.users, uses: p.count, lastAt: p.lastAt, learned: p.users >= settings.min_users });
      }
    }
    if (values.json) io.out(`${JSON.stringify(rows, null, 2)}\n`);
    else if (rows.length === 0) io.out(values.all ? 'no learned evidence\n' : `no learned pairs (a pair needs ${settings.min_users} distinct users; --all shows those still gathering evidence)\n`);
    else {
      const cells = rows.map((r) => [
        r.persona || '-', r.tenant || '-', r.tool, JSON.stringify(r.query), String(r.users), String(r.uses),
        new Date(r.lastAt).toISOString().slice(0, 16).replace('T', ' '), r.learned ? 'learned' : `${r.users}/${settings.min_users} users`,
      ]);
      io.out(table(['PERSONA', 'TENANT', 'TOOL', 'QUERY', 'USERS', 'USES', 'LAST USED (UTC)', 'STATUS'], cells));
      if (!settings.enabled) io.out('learning is off (curator.learning.enabled: false): the gateway neither records nor ranks with these\n');
    }
    return 0;
  }
  if (verb === 'forget') {
    const given = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined));
    if (Object.keys(given).length === 0 && values.all !== true) {
      io.err(`learned forget needs --persona, --tenant, --tool or --query (or --all for every pair)\n${LEARNED_USAGE}\n`);
      return 2;
    }
    const n = await store.forget(given);
    io.out(`forgot ${n} evidence row${n === 1 ? '' : 's'}; a running gateway stops ranking with them at its next refresh (within ${settings.refresh_seconds} s)\n`);
    return 0;
  }
  io.err(`${LEARNED_USAGE}\n`);
  return 2;
}
