/**
 * `tool-curator definitions`: what a person uses to review tool definitions an upstream
 * changed (guards/pins.ts) and accept one. Accepting is signed with the approver key, like
 * an approval: only the person who approves can let a changed definition through.
 */
import type { KeyObject } from 'node:crypto';
import { parseArgs } from 'node:util';
import difflib from 'difflib';
import { toolKey } from '../catalog/names.js';
import type { DefinitionPin, Store } from '../store/types.js';
import { cliDefinitionProof } from './acceptance.js';
import { ApproverKeyError, publicKeyPath, readApproverKey } from './approver.js';
import { stdio, table, timestamp, type CommandIO } from './commandIO.js';
import { clipName } from './bound.js';
import { deciderText, MIN_DIGEST_HEX } from './commands.js';
import { auditAcceptance } from './pins.js';

const DEFINITIONS_USAGE =
  'usage: tool-curator definitions list [--all] [--json] | diff TOOL | accept TOOL DIGEST [--key-file F] | accept --all --upstream U [--yes] [--key-file F]   (TOOL: its exposed name or <upstream>.<tool>)';

export type Stores = Pick<Store, 'definitions' | 'names' | 'audit'>;

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
  // Held back again because its acceptance stopped counting (pins.ts): say why, above the diff.
  const why = pin.voided === undefined ? '' : `held back again: ${pin.voided}\n`;
  return `${why}${lines.join('\n')}\n`;
}

/** Who accepted a pin's definition, and when; `-` for a definition pinned when first seen. */
function acceptedBy(pin: DefinitionPin): [string, string] {
  return pin.decidedBy === undefined ? ['-', '-'] : [deciderText(pin.decidedBy), timestamp(pin.decidedAt ?? 0)];
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
 * every pin), with who accepted each pinned definition and when; `definitions diff TOOL`:
 * the change as a unified diff; `definitions accept TOOL DIGEST`: accept the changed
 * definition whose digest (or its first MIN_DIGEST_HEX+ hex digits) is DIGEST — what
 * `diff` showed — signed with the approver key (`--key-file`, default `keyPath`);
 * `definitions accept --all --upstream U [--yes]`: every changed definition of U, each
 * diff shown first, once the person confirms (acceptAll).
 * @returns 0 on success, 1 when refused (no key, unknown tool, digest not pending), 2 on a usage error.
 */
export async function definitionsCommand(args: string[], stores: Stores, keyPath: string, io: CommandIO = stdio): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { all: { type: 'boolean' }, json: { type: 'boolean' }, 'key-file': { type: 'string' }, upstream: { type: 'string' }, yes: { type: 'boolean' } },
    allowPositionals: true,
    strict: false,
  });
  const [verb, tool, digest] = positionals;
  const keyFile = typeof values['key-file'] === 'string' ? values['key-file'] : keyPath;
  if (verb === 'accept' && values.all === true && tool === undefined) {
    return acceptAll(stores, typeof values.upstream === 'string' ? values.upstream : undefined, { keyFile, keyPath, yes: values.yes === true }, io);
  }
  if (verb === 'list' || verb === undefined) {
    const pins = await stores.definitions.list(values.all ? {} : { status: 'changed' });
    if (values.json) io.out(`${JSON.stringify(pins, null, 2)}\n`);
    else if (pins.length === 0) io.out(values.all ? 'no pinned definitions\n' : 'no changed definitions\n');
    else {
      const names = await stores.names.load();
      const rows = pins.map((p) => [
        names.get(toolKey(p.server, p.upstreamName)) ?? '-',
        `${p.server}.${p.upstreamName}`,
        p.voided === undefined ? p.status : `${p.status} (acceptance voided)`,
        p.digest.slice(0, 23),
        p.pendingDigest?.slice(0, 23) ?? '-',
        p.changedAt !== undefined && p.status === 'changed' ? timestamp(p.changedAt) : '-',
        ...acceptedBy(p),
      ]);
      io.out(table(['TOOL', 'UPSTREAM', 'STATUS', 'ACCEPTED', 'CHANGED TO', 'CHANGED AT', 'ACCEPTED BY', 'ACCEPTED AT'], rows));
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
      if (!(await acceptSigned(stores, readApproverKey(keyFile, publicKeyPath(keyPath)), pin))) {
        io.err(`the definition of ${pin.server}.${pin.upstreamName} changed again meanwhile; nothing was accepted: review it again (diff)\n`);
        return 1;
      }
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

/**
 * Accepts `pin`'s pending definition with the approver key, signed with the time of the
 * acceptance, and audits it.
 * @returns false when the pending definition is no longer the one in `pin` (changed again meanwhile).
 */
export async function acceptSigned(stores: Stores, key: KeyObject, pin: DefinitionPin): Promise<boolean> {
  const at = Date.now();
  const proof = cliDefinitionProof(key, pin.server, pin.upstreamName, pin.pendingDigest!, at);
  if (!(await stores.definitions.accept(pin.server, pin.upstreamName, pin.pendingDigest!, 'cli', proof, at))) return false;
  await auditAcceptance(stores.audit, pin.server, pin.upstreamName, pin.pendingDigest!, 'cli', at);
  return true;
}

/**
 * `definitions accept --all --upstream U [--yes]`: shows the diff of every changed
 * definition of upstream U, asks the person at the terminal to confirm (`--yes`: already
 * reviewed, for a script), then accepts each exactly as shown, signed with the approver
 * key, and prints what it accepted. Without `--upstream` it refuses: one upstream's
 * upgrade at a time, never every upstream's changes at once.
 * @returns 0 when every definition shown was accepted (or none was held), 1 when refused
 *   or some changed again meanwhile, 2 without `--upstream`.
 */
async function acceptAll(stores: Stores, upstream: string | undefined, opts: { keyFile: string; keyPath: string; yes: boolean }, io: CommandIO): Promise<number> {
  if (upstream === undefined) {
    io.err('definitions accept --all needs --upstream U: it accepts the changed definitions of one upstream, each shown first; nothing was accepted\n');
    return 2;
  }
  let key: KeyObject;
  try {
    key = readApproverKey(opts.keyFile, publicKeyPath(opts.keyPath));
  } catch (err) {
    if (!(err instanceof ApproverKeyError)) throw err;
    io.err(`${err.message}\n`);
    return 1;
  }
  const held = (await stores.definitions.list({ status: 'changed', server: upstream })).filter((p) => p.pendingDigest !== undefined);
  if (held.length === 0) {
    io.out(`no changed definitions of upstream ${upstream} await review\n`);
    return 0;
  }
  for (const pin of held) io.out(`${pin.server}.${pin.upstreamName}\n${definitionDiff(pin)}\n`);
  const what = `the ${held.length} changed definition${held.length === 1 ? '' : 's'} of upstream ${upstream} shown above`;
  if (!opts.yes) {
    if (!io.ask) {
      io.err(`definitions accept --all asks the person at a terminal to confirm; after reviewing ${what}, add --yes to accept them. Nothing was accepted.\n`);
      return 1;
    }
    if ((await io.ask(`Accept ${what}? Type yes to accept them: `)).trim().toLowerCase() !== 'yes') {
      io.err('nothing was accepted\n');
      return 1;
    }
  }
  const accepted: string[] = [];
  const again: string[] = [];
  for (const pin of held) (await acceptSigned(stores, key, pin) ? accepted : again).push(`${pin.server}.${pin.upstreamName} (${pin.pendingDigest})`);
  if (accepted.length > 0) io.out(`accepted ${accepted.length} changed definition${accepted.length === 1 ? '' : 's'}; running gateways expose them at their next catalog rebuild:\n${accepted.map((a) => `  ${a}\n`).join('')}`);
  if (again.length > 0) io.err(`not accepted, changed again since shown (review them again with diff):\n${again.map((a) => `  ${a}\n`).join('')}`);
  return again.length > 0 ? 1 : 0;
}
