/**
 * Pinned tool definitions: the defence against an upstream that changes a tool after
 * people came to trust it (a "rug pull": a description that now says "always bcc …", a new
 * parameter). The first definition seen of each (upstream, tool) is pinned by digest in the
 * store (definition.ts says what the digest covers); a later, different definition is
 * recorded as a pending change, logged once, audited once, and — with
 * `definitions.on_change: hold`, the default — held back: left out of the catalog (so out
 * of tools/list and find_tools) and refused when called, until a person accepts it with the
 * approver key (definitionCommands.ts, the approvals page). With `warn` it is exposed, and
 * still logged, audited and reported by doctor.
 *
 * Whatever the mode, confirmation never loosens: the annotations of the pinned (accepted)
 * definition feed policy/actions.ts (AcceptedAnnotations), and an approval's statement
 * names the definition digest, so an approval given before a change does not run the new
 * definition.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { toolKey } from '../catalog/names.js';
import { log } from '../log.js';
import type { AuditPart, DefinitionPin, DefinitionsPart } from '../store/types.js';
import { AuditWriter } from './audit.js';
import { sha256 } from './canonical.js';
import { pickDefinition, pinOf } from './definition.js';

export type OnChange = 'hold' | 'warn';

/** A tool whose upstream definition differs from its pinned one. */
export interface ChangedDefinition {
  server: string;
  upstreamName: string;
  /** Digest of the pinned (first seen or last accepted) definition. */
  pinnedDigest: string;
  /** Digest of the definition the upstream lists now: what a person accepts. */
  pendingDigest: string;
}

export interface PinReview {
  /** The tool lists to build the catalog from: without the changed tools under `hold`, unchanged under `warn`. */
  byServer: Map<string, Tool[]>;
  /** Every tool whose definition differs from its pin, in list order. */
  changed: ChangedDefinition[];
}

/**
 * The annotations a pinned definition's text carries; `{}` for one without any (MCP's
 * defaults apply: an action), and for a text that is not the one its digest names (the
 * store was changed).
 */
function annotationsOf(pin: DefinitionPin): ToolAnnotations {
  if (sha256(pin.definition) !== pin.digest) return {};
  try {
    return (JSON.parse(pin.definition) as { annotations?: ToolAnnotations }).annotations ?? {};
  } catch {
    return {};
  }
}

/** Whether a pin's digest carries a person's signature of its acceptance (acceptance.ts definitionProofValid). */
export type AcceptanceCheck = (pin: DefinitionPin) => boolean;

/** Why a pin's acceptance no longer counts under the rules in force, or undefined (acceptance.ts acceptanceVoided). */
export type AcceptanceStanding = (pin: DefinitionPin) => string | undefined;

export class DefinitionPins {
  /** Pins as last read from the store, by toolKey; used as they are while the store is unavailable. */
  private pins = new Map<string, DefinitionPin>();
  /**
   * The pin this process holds to, by toolKey: the first it read or made, then each one a
   * person signed. A store row rewritten to another digest without that signature (or
   * deleted) does not replace it, so a writer of the store cannot make a running gateway
   * take a changed definition as pinned. (A gateway started afterwards reads the row as
   * it finds it: first-seen pins carry no signature.)
   */
  private readonly held = new Map<string, DefinitionPin>();
  /** `toolKey\0pendingDigest` of the changes this process has logged and audited. */
  private readonly told = new Set<string>();

  /**
   * @param audit where a change is audited once (a row with decision `refused` under
   *   `hold`, `allowed` under `warn`); default: logged only.
   * @param acceptedByPerson tells a person's acceptance from a rewritten row; default: none counts.
   * @param voided asked at each review of a listed tool: an acceptance it names a reason for
   *   no longer counts, and the definition it accepted is held back again (`reopen`); default: every one counts.
   */
  constructor(
    private readonly store: DefinitionsPart,
    private readonly onChange: OnChange,
    private readonly audit?: AuditWriter,
    private readonly acceptedByPerson: AcceptanceCheck = () => false,
    private readonly voided: AcceptanceStanding = () => undefined,
  ) {}

  /**
   * The pin to compare a listed tool with: the store's, unless it moved away from the one
   * this process holds to without a person's signature (then the held one, logged once).
   */
  private pinFor(key: string): DefinitionPin | undefined {
    const stored = this.pins.get(key);
    const held = this.held.get(key);
    // A row reopened because held's acceptance stopped counting (reopen, here or on another replica) only holds back more.
    const reopened = stored?.voided !== undefined && held?.decidedBy !== undefined && stored.digest === (held.priorDigest ?? 'none');
    if (!held || (stored && (stored.digest === held.digest || reopened || this.acceptedByPerson(stored)))) {
      if (stored) this.held.set(key, stored);
      return stored;
    }
    const told = `${key}\0rewritten\0${stored?.digest ?? 'deleted'}`;
    if (!this.told.has(told)) {
      this.told.add(told);
      log.error(
        { upstream: held.server, tool: held.upstreamName, pinned: held.digest, store: stored?.digest ?? null },
        `the pinned definition of ${held.upstreamName} (upstream "${held.server}") was ${stored ? 'rewritten' : 'deleted'} in the store without a person's signature; the pin this gateway holds to stays`,
      );
    }
    return { ...held, ...(stored?.pendingDigest !== undefined && { pendingDigest: stored.pendingDigest }) };
  }

  /**
   * The annotations of the definition pinned for (server, upstream name) — the one first
   * seen or last accepted by a person — for ActionRules; undefined for a tool not pinned yet.
   */
  readonly acceptedAnnotations = (server: string, upstreamName: string): ToolAnnotations | undefined => {
    const pin = this.held.get(toolKey(server, upstreamName)) ?? this.pins.get(toolKey(server, upstreamName));
    return pin && annotationsOf(pin);
  };

  /**
   * Compares each listed tool with its pin: pins the ones first seen, records and reports
   * changes, clears a change the upstream has taken back. A store that cannot be read or
   * written is logged, and the pins last read decide.
   * @param byServer the tool lists as bounded for the catalog (catalog/bounds.ts).
   */
  async review(byServer: Map<string, Tool[]>): Promise<PinReview> {
    try {
      this.pins = new Map((await this.store.list()).map((p) => [toolKey(p.server, p.upstreamName), p]));
    } catch (err) {
      log.error({ err: (err as Error).message }, 'pinned tool definitions could not be read; using the ones last read');
    }
    const out = new Map<string, Tool[]>();
    const changed: ChangedDefinition[] = [];
    const digests = new Map<Tool, { text: string; digest: string }>();
    const firstSeen: { server: string; upstreamName: string; digest: string; definition: string }[] = [];
    for (const [server, tools] of byServer) {
      const named = new Set<string>();
      for (const tool of tools) {
        if (named.has(tool.name)) continue;
        named.add(tool.name);
        const pinned = pinOf(pickDefinition(tool));
        digests.set(tool, pinned);
        if (!this.pinFor(toolKey(server, tool.name))) firstSeen.push({ server, upstreamName: tool.name, digest: pinned.digest, definition: pinned.text });
      }
    }
    await this.pinAllFirstSeen(firstSeen);
    for (const [server, tools] of byServer) {
      const kept: Tool[] = [];
      const seen = new Set<string>();
      for (const tool of tools) {
        // A name listed twice: the catalog takes the first, so only the first is pinned.
        if (seen.has(tool.name)) {
          kept.push(tool);
          continue;
        }
        seen.add(tool.name);
        const { text, digest } = digests.get(tool) ?? pinOf(pickDefinition(tool));
        const found = this.pinFor(toolKey(server, tool.name));
        const pin = found ? await this.recheck(found) : await this.pinFirstSeen(server, tool.name, digest, text);
        if (!pin || pin.digest === digest) {
          if (pin?.status === 'changed') await this.store.clearChange(server, tool.name).catch((err: Error) => log.error({ err: err.message }, 'clearing a taken-back definition change failed'));
          kept.push(tool);
          continue;
        }
        const change: ChangedDefinition = { server, upstreamName: tool.name, pinnedDigest: pin.digest, pendingDigest: digest };
        await this.record(change, pin, text);
        changed.push(change);
        if (this.onChange === 'warn') kept.push(tool);
      }
      out.set(server, kept);
    }
    return { byServer: out, changed };
  }

  /** Pins the definitions first seen in one go (store pinAllIfAbsent); those it fails on are pinned one by one in review. */
  private async pinAllFirstSeen(pins: { server: string; upstreamName: string; digest: string; definition: string }[]): Promise<void> {
    if (pins.length === 0) return;
    try {
      for (const pin of await this.store.pinAllIfAbsent(pins)) {
        this.pins.set(toolKey(pin.server, pin.upstreamName), pin);
        this.held.set(toolKey(pin.server, pin.upstreamName), pin);
      }
    } catch (err) {
      log.error({ err: (err as Error).message, tools: pins.length }, 'first-seen tool definitions could not be pinned together; pinning them one by one');
    }
  }

  private async pinFirstSeen(server: string, upstreamName: string, digest: string, definition: string): Promise<DefinitionPin | undefined> {
    try {
      const { pin } = await this.store.pinIfAbsent({ server, upstreamName, digest, definition });
      this.pins.set(toolKey(server, upstreamName), pin);
      this.held.set(toolKey(server, upstreamName), pin);
      return pin;
    } catch (err) {
      log.error({ err: (err as Error).message, upstream: server, tool: upstreamName }, 'a first-seen tool definition could not be pinned');
      return undefined;
    }
  }

  /**
   * `pin` if its acceptance still counts; otherwise the pin it goes back to — the
   * definition the acceptance replaced, with the accepted one pending again (store
   * `reopen`, which other replicas then read) — logged and audited once.
   */
  private async recheck(pin: DefinitionPin): Promise<DefinitionPin> {
    const why = this.voided(pin);
    if (why === undefined) return pin;
    const { server, upstreamName } = pin;
    const key = toolKey(server, upstreamName);
    const local: DefinitionPin = {
      server, upstreamName, firstSeenAt: pin.firstSeenAt, status: 'changed', voided: why, changedAt: Date.now(),
      digest: pin.priorDigest ?? 'none', definition: pin.priorDefinition ?? '',
      pendingDigest: pin.pendingDigest ?? pin.digest, pendingDefinition: pin.pendingDefinition ?? pin.definition,
    };
    const stored = await this.store.reopen(server, upstreamName, pin.digest, why).catch((err: Error) => void log.error({ err: err.message }, 'a voided acceptance could not be recorded'));
    const now = stored?.digest === local.digest && stored.voided !== undefined ? stored : local;
    this.pins.set(key, now);
    this.held.set(key, now);
    const told = `${key}\0voided\0${pin.digest}`;
    if (!this.told.has(told)) {
      this.told.add(told);
      const message = `the acceptance of ${upstreamName}'s definition (upstream "${server}") by ${pin.decidedBy ?? 'a person'} no longer counts: ${why}; it is held back again until a person accepts it`;
      log.warn({ upstream: server, tool: upstreamName, accepted: pin.digest, by: pin.decidedBy }, message);
      await this.audit
        ?.record({
          time: Date.now(), sessionId: 'gateway', tool: upstreamName, requestedName: upstreamName,
          args: { upstream: server, voided: pin.digest, ...(pin.decidedBy !== undefined && { by: pin.decidedBy }) },
          decision: 'refused', decisions: ['refused'], notes: [`acceptance of a changed definition of upstream ${server} voided: ${why}`], outcome: 'not_run',
        })
        .catch((err: Error) => log.error({ err: err.message }, 'auditing a voided acceptance failed'));
    }
    return now;
  }

  /** Stores the pending change (once per new definition) and logs and audits it once per process. */
  private async record(change: ChangedDefinition, pin: DefinitionPin, text: string): Promise<void> {
    const { server, upstreamName, pinnedDigest, pendingDigest } = change;
    if (pin.pendingDigest !== pendingDigest) {
      await this.store.markChanged(server, upstreamName, pendingDigest, text).catch((err: Error) => log.error({ err: err.message }, 'a changed tool definition could not be recorded'));
    }
    const told = `${toolKey(server, upstreamName)}\0${pendingDigest}`;
    if (this.told.has(told)) return;
    this.told.add(told);
    const held = this.onChange === 'hold';
    log.warn(
      { upstream: server, tool: upstreamName, pinned: pinnedDigest, changed: pendingDigest },
      `upstream "${server}" changed the definition of ${upstreamName}; ${held ? 'it is held back (not listed, not callable)' : 'it is exposed (definitions.on_change: warn)'} until a person accepts the new definition`,
    );
    await this.audit
      ?.record({
        time: Date.now(),
        sessionId: 'gateway',
        tool: upstreamName,
        requestedName: upstreamName,
        args: { upstream: server, pinned: pinnedDigest, changed: pendingDigest },
        decision: held ? 'refused' : 'allowed',
        decisions: [held ? 'refused' : 'allowed'],
        notes: [`definition changed by upstream ${server}; ${held ? 'held back' : 'exposed with a warning'} until a person accepts it`],
        outcome: 'not_run',
      })
      .catch((err: Error) => log.error({ err: err.message }, 'auditing a changed tool definition failed'));
  }
}

/** Audits a person's acceptance of a changed definition (`by`: `cli`, `web` or `web:<approver>`) given at `at`, beside the change's own row. */
export function auditAcceptance(audit: AuditPart, server: string, upstreamName: string, digest: string, by: string, at = Date.now()): Promise<number> {
  return new AuditWriter(audit).record({
    time: at,
    sessionId: 'gateway',
    tool: upstreamName,
    requestedName: upstreamName,
    args: { upstream: server, accepted: digest, by },
    decision: 'approved',
    decisions: ['approved'],
    notes: [`changed definition of upstream ${server} accepted by a person (${by})`],
    outcome: 'not_run',
  });
}
