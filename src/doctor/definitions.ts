/**
 * `doctor`'s check of pinned tool definitions (guards/pins.ts): every definition an
 * upstream changed that awaits a person (held back, or exposed with a warning), every tool
 * the doctor's own listing finds changed from its pin, and every accepted change whose
 * signature does not verify with the approver key or the approvals token.
 */
import { existsSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/server';
import { boundTools } from '../catalog/bounds.js';
import { toolKey } from '../catalog/names.js';
import type { LoadedConfig } from '../config/load.js';
import { openConfiguredStore, storeLocation } from '../config/store.js';
import { definitionProofValid } from '../guards/acceptance.js';
import { approverKeyPath } from '../guards/approver.js';
import { pickDefinition, pinOf } from '../guards/definition.js';
import { isPostgresUrl } from '../store/location.js';
import type { Finding } from './types.js';

const short = (digest: string | undefined) => (digest ?? '-').slice(0, 23);

/**
 * @param byServer the tools doctor listed from the upstreams that started.
 * @returns findings (`pinned` check); none when the store cannot be opened (the store check reports that).
 */
export async function checkDefinitions(loaded: LoadedConfig, byServer: Map<string, Tool[]>): Promise<Finding[]> {
  // A store file that does not exist is not created by a check (the store check says so).
  const location = storeLocation(loaded);
  if (!isPostgresUrl(location) && !existsSync(location)) return [];
  let pins;
  try {
    const store = await openConfiguredStore(loaded);
    try {
      pins = await store.definitions.list();
    } finally {
      await store.close();
    }
  } catch {
    return [];
  }
  const { definitions, http } = loaded.config;
  const held = definitions.on_change === 'hold';
  const findings: Finding[] = [];
  const byKey = new Map(pins.map((p) => [toolKey(p.server, p.upstreamName), p]));
  const bounded = boundTools(byServer, { descriptionBytes: definitions.max_description_bytes, titleChars: definitions.max_title_chars, schemaBytes: definitions.max_schema_bytes }).byServer;
  const keyPath = approverKeyPath(loaded.config, loaded.baseDir);
  for (const p of pins) {
    const name = `${p.server}.${p.upstreamName}`;
    if (p.status === 'changed') {
      findings.push({
        check: 'pinned', level: 'warn', key: name,
        message: `its upstream changed the definition (accepted ${short(p.digest)}, now ${short(p.pendingDigest)}); ${held ? 'held back' : 'exposed (on_change: warn)'} until a person accepts it: tool-curator definitions diff ${name}`,
      });
    }
    if (p.decidedAt !== undefined && !definitionProofValid(p, keyPath, http.approvals_token)) {
      findings.push({ check: 'pinned', level: 'warn', key: name, message: `its accepted definition ${short(p.digest)} carries no valid signature of the approver key or approvals token (the store was written directly?)` });
    }
  }
  for (const [server, tools] of bounded) {
    for (const t of tools) {
      const pin = byKey.get(toolKey(server, t.name));
      const digest = pinOf(pickDefinition(t)).digest;
      if (pin && pin.digest !== digest && pin.pendingDigest !== digest) {
        findings.push({ check: 'pinned', level: 'warn', key: `${server}.${t.name}`, message: `the upstream lists a definition (${short(digest)}) that differs from the accepted one (${short(pin.digest)}); a gateway will ${held ? 'hold it back' : 'warn'} when it sees it` });
      }
    }
  }
  const changed = pins.filter((p) => p.status === 'changed').length;
  if (findings.length === 0) findings.push({ check: 'pinned', level: 'ok', message: `${pins.length} pinned, ${changed} changed` });
  return findings;
}
