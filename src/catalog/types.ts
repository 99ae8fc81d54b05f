/**
 * The catalog's unit: one upstream tool as the gateway knows it. Owned by catalog/;
 * everything downstream (policy, curator, gateway, guards) reads ToolRecords and never
 * talks to an upstream to learn about a tool.
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/server';

export interface ToolRecord {
  /** Upstream name from gateway.config.yaml (`academics`, `files`, ...). */
  server: string;
  /** The tool's name as its upstream sent it; used when forwarding a call. */
  upstreamName: string;
  /**
   * The name the host sees. Equal to upstreamName unless two upstreams expose the same
   * name, in which case every holder of that name is exposed as `<server>__<tool>`.
   */
  name: string;
  title?: string;
  /** As the host sees it: the upstream's, or an operator override's (config `overrides`); '' when absent. */
  description: string;
  /** JSON Schema object, exactly as the upstream sent it. */
  inputSchema: Tool['inputSchema'];
  outputSchema?: Tool['outputSchema'];
  annotations?: ToolAnnotations;
  /** As the upstream sent them, shown to the host unchanged. */
  icons?: Tool['icons'];
  /** Task support (`execution.taskSupport`) as the upstream sent it, shown to the host unchanged. */
  execution?: Tool['execution'];
  /** The upstream's `_meta` of the tool, shown to the host unchanged. */
  _meta?: Tool['_meta'];
  /**
   * True when the tool changes state, so a persona with `confirm: actions` confirms it:
   * the operator's `confirmation.actions` / `confirmation.read_only` first, else its
   * annotations read with MCP's defaults (a tool without annotations is an action), and an
   * upstream's later change of annotations never makes it read-only by itself
   * (policy/actions.ts).
   */
  isAction: boolean;
  /** The upstream server's own name for itself at initialize (`serverInfo.title`, else `serverInfo.name`), when it differs from `server`. */
  serverTitle?: string;
  /**
   * The upstream server's `instructions` from initialize. The curator indexes them for
   * tools whose description is empty or only repeats the name (catalog/retrievalText.ts).
   */
  serverInstructions?: string;
  /**
   * Example requests for the tool from an operator override (config `overrides`): the
   * curator indexes them like exemplars.json phrasings. Never shown to the host.
   */
  examples?: string[];
  /**
   * The definition exactly as the upstream listed it, whatever an operator override changed
   * in the fields above: what a pinned-definition check compares. Absent for records that
   * did not come from an upstream (library callers, eval data sets).
   */
  upstreamDefinition?: Tool;
}
