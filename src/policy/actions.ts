/**
 * Which tools are actions (state-changing; confirmed under a persona's `confirm: actions`).
 * The operator decides, the upstream only informs:
 *
 * 1. a tool matching `confirmation.actions` is an action;
 * 2. otherwise a tool matching `confirmation.read_only` is not;
 * 3. otherwise its annotations decide, read with MCP's defaults (`readOnlyHint: false`,
 *    `destructiveHint: true`): only a tool that says `readOnlyHint: true`, and does not
 *    also say `destructiveHint: true`, is read-only; a tool without annotations is an action;
 * 4. and an upstream cannot loosen that by changing its annotations: a tool that was an
 *    action by the definition a person accepted — or, until definition pinning supplies
 *    that, by the first definition this gateway saw — stays one.
 *
 * Patterns are the personas' (`<server>.<glob>` or a bare `<glob>`, over the upstream or
 * exposed name). See docs/SAFETY.md, "Which calls need a person".
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';
import { annotatedAction, type ActionClassifier } from '../catalog/catalog.js';
import { toolKey } from '../catalog/names.js';
import { log } from '../log.js';
import { parsePattern, type CompiledPattern } from './policy.js';

export interface ActionRulesConfig {
  /** Patterns of tools that are actions whatever their annotations. */
  actions: readonly string[];
  /** Patterns of tools that are read-only whatever their annotations (`actions` wins). */
  read_only: readonly string[];
}

/**
 * The annotations of the definition a person accepted for (server, upstream name), if
 * any: the hook for definition pinning. Undefined: none accepted (yet).
 */
export type AcceptedAnnotations = (server: string, upstreamName: string) => ToolAnnotations | undefined;

export class ActionRules {
  private readonly actions: CompiledPattern[];
  private readonly readOnly: CompiledPattern[];
  /** Annotations of the first definition seen of each tool, for tools no person has accepted a definition of. */
  private readonly first = new Map<string, ToolAnnotations | undefined>();
  private readonly warned = new Set<string>();

  /**
   * ### Usage
   * ```ts
   * const rules = new ActionRules(config.confirmation);
   * buildCatalog(byServer, rules.classify, names);
   * ```
   * @param accepted the annotations a person accepted per tool (definition pinning); default none.
   */
  constructor(
    config: ActionRulesConfig,
    private readonly accepted: AcceptedAnnotations = () => undefined,
  ) {
    this.actions = config.actions.map(parsePattern);
    this.readOnly = config.read_only.map(parsePattern);
  }

  private matches(patterns: CompiledPattern[], server: string, names: string[]): boolean {
    return patterns.some((p) => (p.server === undefined || p.server === '*' || p.server === server) && names.some((n) => p.name.test(n)));
  }

  /** The operator's word on a tool, if any. */
  rule(server: string, upstreamName: string, exposed: string): 'action' | 'read_only' | undefined {
    const names = [upstreamName, exposed];
    if (this.matches(this.actions, server, names)) return 'action';
    if (this.matches(this.readOnly, server, names)) return 'read_only';
    return undefined;
  }

  /** `isAction` as a catalog takes it (catalog.ts buildCatalog). */
  get classify(): ActionClassifier {
    return (server, tool, exposed) => this.isAction(server, tool, exposed);
  }

  /** Whether `tool` of `server`, exposed as `exposed`, is an action (rules in the module comment). */
  isAction(server: string, tool: Tool, exposed: string): boolean {
    const rule = this.rule(server, tool.name, exposed);
    if (rule) return rule === 'action';
    const key = toolKey(server, tool.name);
    if (!this.first.has(key)) this.first.set(key, tool.annotations);
    const accepted = this.accepted(server, tool.name);
    const baseline = accepted ?? this.first.get(key);
    const now = annotatedAction(tool.annotations);
    if (!now && annotatedAction(baseline)) {
      if (this.warned.has(key)) return true;
      this.warned.add(key);
      log.warn(
        { upstream: server, tool: tool.name, annotations: tool.annotations },
        `upstream "${server}" now annotates ${tool.name} read-only; it stays an action, confirmed as before, until a person accepts the new definition`,
      );
      return true;
    }
    return now;
  }
}
