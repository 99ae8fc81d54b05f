/**
 * The persona's resource policy over completion/complete answers: an upstream's
 * suggestion that would lead the host to a resource the persona may not read is not
 * offered. For a resource template, each value is put into the template (with the
 * arguments the host already gave) and the URI it makes must be readable; for a prompt,
 * a value that is itself a URI must not be denied. The rest of the answer passes as sent.
 */
import type { CompleteRequest, CompleteResult, UriTemplate } from '@modelcontextprotocol/server';

/**
 * The URI `template` makes with `value` for the argument being completed and the host's
 * other arguments; variables not known yet expand to nothing.
 * @returns undefined when the template cannot expand the value.
 */
export function expansion(template: UriTemplate, params: CompleteRequest['params'], value: string): string | undefined {
  try {
    return template.expand({ ...params.context?.arguments, [params.argument.name]: value });
  } catch {
    return undefined;
  }
}

/**
 * `result` without the values `keep` refuses; `total` (when the upstream gave one) counts
 * the values left out as gone.
 */
export function keepValues(result: CompleteResult, keep: (value: string) => boolean): CompleteResult {
  const values = result.completion.values.filter(keep);
  if (values.length === result.completion.values.length) return result;
  const { total, ...rest } = result.completion;
  const left = total === undefined ? undefined : Math.max(values.length, total - (result.completion.values.length - values.length));
  return { ...result, completion: { ...rest, values, ...(left !== undefined && { total: left }) } };
}
