/**
 * `tool-curator definitions`: what a person uses to review tool definitions an upstream
 * changed (guards/pins.ts) and accept one. Accepting is signed with the approver key, like
 * an approval: only the person who approves can let a changed definition through.
 */
import { parseArgs } from 'node:util';
import difflib from 'difflib';
import { toolKey } from '../catalog/names.js';
import type { DefinitionPin, Store } from '../store/types.js';
import { ApproverKeyError, cliDefinitionProof, publicKeyPath, readApproverKey } from './approver.js';
import { stdio, table, timestamp, type CommandIO } from './commandIO.js';
import { clipName } from './bound.js';
import { MIN_DIGEST_HEX } from './commands.js';
import { auditAcceptance } from './pins.js';

const DEFINITIONS_USAGE = 'usage: tool-curator definitions list [--all] [--json] | diff TOOL | accept TOOL DIGEST [--key-file F]   (TOOL: its exposed name or <upstream>.<tool>)';

type Stores = Pick<Store, 'definitions' | 'names' | 'audit'>;

/** A definition's JSON text, one member per line (keys are sorted already: the text is canonical). */
function pretty(text: string | undefined): string[] {
  if (text === undefined) return [];
  try {
    return JSON.stringify(JSON.parse(text), null, 2).split('\n');
  } catch {
    return text.split('\n');
  }
}

/**
 * The unified diff from a pin's accepted definition to its pending one, with `---`/`+++`
 * lines naming both digests; empty when nothing is pending.
 */
export function definitionDiff(pin: DefinitionPin): string {
  if (pin.pendingDefinition === undefined) return '';
  const lines = difflib.unifiedDiff(pretty(pin.definition), pretty(pin.pendingDefinition), {
    fromfile: `accepted ${pin.digest}`,
    tofile: `changed ${pin.pendingDigest}`,
    lineterm: '',
  });
  return `${lines.join('\n')}\n`;
}

/** The pin a person names: an exposed name (the store's name map) or `<upstream>.<tool>`. */
async function pinNamed(stores: Stores, tool: string): Promise<DefinitionPin | undefined> {
  const names = await stores.names.load();
  for (const [key, name] of names) {
    if (name !== tool) continue;
    const [server, upstreamName] = key.split('\0') as [string, string];
    return stores.definitions.get(server, upstreamName);
  }
  const dot = tool.indexOf('.');
  return dot > 0 ? stores.definitions.get(tool.slice(0, dot), tool.slice(dot + 1)) : undefined;
}

/**
 * `definitions list [--all] [--json]`: changed definitions awaiting a person (with `--all`,
 * every pin); `definitions diff TOOL`: the change as a unified diff; `definitions accept
 * TOOL DIGEST`: accept the changed definition whose digest (or its first MIN_DIGEST_HEX+ hex digits)
 * is DIGEST — what `diff` showed — signed with the approver key (`--key-file`, default `keyPath`).
 * @returns 0 on success, 1 when refused (no key, unknown tool, digest not pending), 2 on a usage error.
 */
export async function definitionsCommand(args: string[], stores: Stores, keyPath: string, io: CommandIO = stdio): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { all: { type: 'boolean' }, json: { type: 'boolean' }, 'key-file': { type: 'string' } },
    allowPositionals: true,
    strict: false,
  });
  const [verb, tool, digest] = positionals;
  if (verb === 'list' || verb === undefined) {
    const pins = await stores.definitions.list(values.all ? {} : { status: 'changed' });
    if (values.json) io.out(`${JSON.stringify(pins, null, 2)}\n`);
    else if (pins.length === 0) io.out(values.all ? 'no pinned definitions\n' : 'no changed definitions\n');
    else {
      const names = await stores.names.load();
      const rows = pins.map((p) => [
        names.get(toolKey(p.server, p.upstreamName)) ?? '-',
        `${p.server}.${p.upstreamName}`,
        p.status,
        p.digest.slice(0, 23),
        p.pendingDigest?.slice(0, 23) ?? '-',
        p.changedAt !== undefined && p.status === 'changed' ? timestamp(p.changedAt) : '-',
      ]);
      io.out(table(['TOOL', 'UPSTREAM', 'STATUS', 'ACCEPTED', 'CHANGED TO', 'CHANGED AT'], rows));
    }
    return 0;
  }
  if ((verb === 'diff' || verb === 'accept') && tool !== undefined && (verb === 'diff' || digest !== undefined)) {
    const pin = await pinNamed(stores, tool);
    if (!pin) {
      io.err(`no pinned definition of a tool named ${tool}; name it by its exposed name or as <upstream>.<tool>\n`);
      return 1;
    }
    if (pin.status !== 'changed' || pin.pendingDigest === undefined) {
      io.err(`${pin.server}.${pin.upstreamName} has no changed definition awaiting review (accepted ${pin.digest})\n`);
      return 1;
    }
    if (verb === 'diff') {
      io.out(definitionDiff(pin));
      return 0;
    }
    const wanted = digest!.replace(/^sha256:/i, '').toLowerCase();
    if (!new RegExp(`^[0-9a-f]{${MIN_DIGEST_HEX},64}$`).test(wanted)) {
      io.err(`definitions accept takes the changed definition's digest as \`definitions diff ${tool}\` prints it: sha256: and its 64 hex digits (at least the first ${MIN_DIGEST_HEX}); got ${clipName(digest!, 80)}; nothing was accepted\n`);
      return 2;
    }
    if (!pin.pendingDigest.replace(/^sha256:/, '').startsWith(wanted)) {
      io.err(`the changed definition of ${pin.server}.${pin.upstreamName} is ${pin.pendingDigest}, not ${digest}: review it again (diff) before accepting\n`);
      return 1;
    }
    try {
      const key = readApproverKey(typeof values['key-file'] === 'string' ? values['key-file'] : keyPath, publicKeyPath(keyPath));
      const proof = cliDefinitionProof(key, pin.server, pin.upstreamName, pin.pendingDigest);
      if (!(await stores.definitions.accept(pin.server, pin.upstreamName, pin.pendingDigest, 'cli', proof))) {
        io.err(`the definition of ${pin.server}.${pin.upstreamName} changed again meanwhile; nothing was accepted: review it again (diff)\n`);
        return 1;
      }
      await auditAcceptance(stores.audit, pin.server, pin.upstreamName, pin.pendingDigest, 'cli');
    } catch (err) {
      if (!(err instanceof ApproverKeyError)) throw err;
      io.err(`${err.message}\n`);
      return 1;
    }
    io.out(`accepted the changed definition of ${pin.server}.${pin.upstreamName} (${pin.pendingDigest}); running gateways expose it at their next catalog rebuild\n`);
    return 0;
  }
  io.err(`${DEFINITIONS_USAGE}\n`);
  return 2;
}
