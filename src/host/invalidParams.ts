/**
 * Invalid params get `-32602 Invalid params`, as the spec says, on every method the host
 * face serves. The SDK's Server checks a spec request against its era's schema before the
 * handler runs, and answers `-32602` for `tools/call`; for every other method
 * (`prompts/get`, `resources/read`, `completion/complete`, `logging/setLevel`,
 * `tools/list` …) it throws a plain Error, which goes out as `-32603 Internal error` with
 * the schema library's issue dump as message. `HostServer` turns that into the SDK's
 * `ProtocolError(InvalidParams)` with a short message naming the param and what it must
 * be, for both eras: the era-exact verdict is the SDK's own (its wire codec), only its
 * wording is ours. The check is repeated only when a handler failed, so a call that
 * succeeds costs nothing more.
 */
import { ProtocolError, ProtocolErrorCode, Server, type JSONRPCRequest, type Result, type ServerContext } from '@modelcontextprotocol/server';

type Handler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** Issues named in one message; the rest are counted. */
const MAX_ISSUES = 3;
/** Characters of one issue's text, so that a long enum or a long key stays a short message. */
const MAX_ISSUE_CHARS = 160;

interface Issue {
  code?: unknown;
  path?: unknown;
  message?: unknown;
  errors?: unknown;
}

const isMissing = (issue: Issue) => issue.code === 'invalid_type' && typeof issue.message === 'string' && issue.message.endsWith('received undefined');

/** `params.ref` for the path `['params', 'ref']`; `params` for the params themselves. */
function pathOf(issue: Issue): string {
  const path = Array.isArray(issue.path) ? issue.path.filter((p) => typeof p === 'string' || typeof p === 'number') : [];
  return path.length === 0 ? 'the request' : path.join('.');
}

/** One issue in words: `params.name: expected string, received number`, `params.ref is required`. */
function issueText(issue: Issue): string {
  const where = pathOf(issue);
  const branches = Array.isArray(issue.errors) ? (issue.errors as unknown[]).filter(Array.isArray) : [];
  // A union whose every form wanted an object at this path that is not there: the param is missing.
  if (isMissing(issue) || (issue.code === 'invalid_union' && branches.length > 0 && branches.every((b: Issue[]) => b.some((i) => isMissing(i) && pathOf(i) === 'the request')))) {
    return `${where} is required`;
  }
  if (issue.code === 'invalid_union') return `${where} matches none of the forms the spec allows`;
  const said = typeof issue.message === 'string' ? issue.message.replace(/^Invalid input: /, '') : 'not valid';
  const text = `${where}: ${said}`;
  return text.length > MAX_ISSUE_CHARS ? `${text.slice(0, MAX_ISSUE_CHARS - 1)}…` : text;
}

/**
 * What is wrong with a request's params, in a sentence, from the SDK's validation message
 * (a JSON list of schema issues); without a list it can read, the sentence names no param.
 */
export function invalidParamsMessage(method: string, validation: string): string {
  let issues: Issue[] = [];
  try {
    const parsed: unknown = JSON.parse(validation);
    if (Array.isArray(parsed)) issues = parsed.filter((i): i is Issue => typeof i === 'object' && i !== null);
  } catch {
    // Not a list of issues: the message below names the method only.
  }
  if (issues.length === 0) return `Invalid params for ${method}: they do not match the MCP schema of ${method}`;
  const named = issues.slice(0, MAX_ISSUES).map(issueText);
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : '';
  return `Invalid params for ${method}: ${named.join('; ')}${more}`;
}

/**
 * The SDK's Server with invalid params answered `-32602` on every spec method.
 *
 * ### Usage
 * ```ts
 * const server = new HostServer(SERVER_INFO, { capabilities: { tools: {}, prompts: {} } });
 * server.setRequestHandler('prompts/get', handler); // { name: 5 } → -32602 "Invalid params for prompts/get: params.name: expected string, received number"
 * ```
 */
export class HostServer extends Server {
  protected override _wrapHandler(method: string, handler: Handler): Handler {
    const wrapped = super._wrapHandler(method, handler);
    return async (request, ctx) => {
      try {
        return await wrapped(request, ctx);
      } catch (err) {
        const outcome = this._wireCodec().validateRequest(method, request);
        if (!outcome.ok && outcome.reason === 'invalid') throw new ProtocolError(ProtocolErrorCode.InvalidParams, invalidParamsMessage(method, outcome.message));
        throw err;
      }
    };
  }
}
