/**
 * Applies policy/contents.ts where upstream answers reach a host: an embedded resource or
 * resource link the persona may not receive is replaced by a text block saying so (the URI
 * echoed as the upstream sent it, bounded; never its contents), and a resources/read
 * entry for such a URI is removed. The same holds for the tool results inside an
 * upstream's sampling/createMessage, which reach the host's model. Arrays without such
 * blocks are returned as they are.
 */
import type { ContentBlock, CreateMessageRequest, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/server';
import { clipName } from '../guards/bound.js';
import { refusesBlock, resourceUriOf, type MayReceive } from '../policy/contents.js';

/** Longest URI echoed in a withheld notice, in characters. */
const ECHO_URI_MAX = 256;

/** The text block that stands where a refused block was. */
export function withheldBlock(block: unknown): ContentBlock {
  const uri = resourceUriOf(block) ?? '';
  const what = (block as { type: string }).type === 'resource_link' ? 'a link to a resource' : 'a resource';
  return { type: 'text', text: `[tool-curator] ${what} was withheld by policy: ${clipName(uri, ECHO_URI_MAX)}` };
}

/** `mayReceive` deciding each distinct URI once: an answer of many blocks naming one URI costs one decision. */
function once(mayReceive: MayReceive): MayReceive {
  const decided = new Map<string, boolean>();
  return (uri) => decided.get(uri) ?? decided.set(uri, mayReceive(uri)).get(uri)!;
}

/** `content` with each refused block replaced (withheldBlock); the same array when none is refused. */
export function withholdBlocks<T>(content: T[], mayReceive: MayReceive): T[] {
  const decide = once(mayReceive);
  if (!content.some((b) => refusesBlock(b, decide))) return content;
  return content.map((b) => (refusesBlock(b, decide) ? (withheldBlock(b) as T) : b));
}

/** A prompt's messages with each refused content block replaced; the same result when none is refused. */
export function withholdMessages(result: GetPromptResult, mayReceive: MayReceive): GetPromptResult {
  const blocks = result.messages.map((m) => m.content);
  const kept = withholdBlocks(blocks, mayReceive);
  return kept === blocks ? result : { ...result, messages: result.messages.map((m, i) => ({ ...m, content: kept[i]! })) };
}

/**
 * A sampling request's messages with each refused block inside a `tool_result` replaced
 * (its other blocks hold no resources: text, image, audio, tool_use); the same params when
 * none is refused.
 */
export function withholdSampled(params: CreateMessageRequest['params'], mayReceive: MayReceive): CreateMessageRequest['params'] {
  const decide = once(mayReceive);
  let changed = false;
  const messages = params.messages.map((m) => {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    const kept = blocks.map((b) => {
      if (b.type !== 'tool_result') return b;
      const content = withholdBlocks(b.content, decide);
      return content === b.content ? b : { ...b, content };
    });
    if (kept.every((b, i) => b === blocks[i])) return m;
    changed = true;
    return { ...m, content: Array.isArray(m.content) ? kept : kept[0]! };
  });
  return changed ? { ...params, messages } : params;
}

/**
 * The contents of a read without the entries the persona may not receive; `uri`, the URI
 * the read asked for (already decided), is not decided again.
 */
export function readableContents(contents: ReadResourceResult['contents'], uri: string, mayReceive: MayReceive): ReadResourceResult['contents'] {
  const decide = once(mayReceive);
  const refused = (c: { uri: string }) => c.uri !== uri && !decide(c.uri);
  return contents.some(refused) ? contents.filter((c) => !refused(c)) : contents;
}
