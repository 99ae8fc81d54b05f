/**
 * The gateway's MCP client for one upstream: the SDK's Client, less one cost per request.
 *
 * SDK 2.4.0's `request()` without a result schema — how `callTool`, `listTools`,
 * `readResource` and `getPrompt` send theirs — first asks the era's codec whether the
 * method has a result schema at all, by validating `undefined` against it and formatting
 * the failure with `String(zodError)` (`codecResultValidator`, on every request). On a
 * stdio tools/call that probe was ~44 µs of the ~0.33 ms the gateway spends between the
 * host's line and the upstream's (docs/PERFORMANCE.md, 2026-12-06). Its answer depends
 * only on the negotiated revision and the method, so here it is asked once per pair, and
 * the request goes to the SDK with a result schema built the way the SDK builds it (the
 * same codec's `validateResult`): the SDK then takes its explicit-schema path, which still
 * gates the method to the era, decodes `input_required` and validates the result. Before
 * a revision is negotiated, for the two methods the SDK lets through every era
 * (`tasks/get`, `tasks/cancel`), and when a schema is passed, the SDK's own path is taken.
 */
import { Client, type RequestOptions, type StandardSchemaV1 } from '@modelcontextprotocol/client';

/** The methods the SDK sends without an era gate when given a schema (its `isExtensionReusedRequestMethod`). */
const ERA_BLIND = new Set(['tasks/get', 'tasks/cancel']);

function isSchema(value: unknown): value is StandardSchemaV1 {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && '~standard' in value;
}

export class UpstreamClient extends Client {
  /** Per `<revision> <method>`: the era's result validator, or null where the era has no result for the method. */
  private readonly validators = new Map<string, StandardSchemaV1 | null>();

  override request(request: { method: string; params?: Record<string, unknown> }, schemaOrOptions?: unknown, maybeOptions?: unknown): Promise<unknown> {
    const validate = isSchema(schemaOrOptions) ? undefined : this.resultValidator(request.method);
    if (validate) return super.request(request, validate, schemaOrOptions as RequestOptions | undefined);
    return (super.request as (r: unknown, s?: unknown, o?: unknown) => Promise<unknown>)(request, schemaOrOptions, maybeOptions);
  }

  /** The era's validator of `method`'s result, as the SDK's `codecResultValidator` makes it; undefined where the SDK's own path decides. */
  private resultValidator(method: string): StandardSchemaV1 | undefined {
    const version = this.getNegotiatedProtocolVersion();
    if (version === undefined || ERA_BLIND.has(method)) return undefined;
    const key = `${version} ${method}`;
    let validator = this.validators.get(key);
    if (validator === undefined) {
      const codec = this._wireCodec();
      const probe = codec.validateResult(method, undefined);
      validator =
        !probe.ok && probe.reason === 'not-in-era'
          ? null
          : {
              '~standard': {
                version: 1,
                vendor: 'mcp-wire-codec',
                validate(value: unknown) {
                  const outcome = codec.validateResult(method, value);
                  if (outcome.ok) return { value: outcome.value };
                  return { issues: [{ message: outcome.reason === 'invalid' ? outcome.message : `not-in-era: ${method}` }] };
                },
              },
            };
      this.validators.set(key, validator);
    }
    return validator ?? undefined;
  }
}
