/**
 * Which content blocks of an upstream's answer name a resource the persona may not
 * receive. An embedded resource (`type: "resource"`, its `resource.uri`) carries the
 * resource's text or blob, and a resource link (`type: "resource_link"`) names one, in
 * a tools/call result or a prompt message just as in resources/read; so they are decided
 * as reads are (Policy.isResourceAllowed: canonical form, every reading, the persona's
 * resource allow and deny rules), or a tool could hand the host a denied file.
 *
 * Only the blocks' own `type` is looked at, never their depth: a result without such
 * blocks costs one comparison per block. `structuredContent` is not scanned (docs/SAFETY.md).
 */

/** Decides one resource URI as sent by an upstream: true when the persona may receive it. */
export type MayReceive = (uri: string) => boolean;

/**
 * The resource URI a content block names, if it is an embedded resource or a resource
 * link; `''` for such a block without a string URI (refused by any decision), undefined
 * for every other block.
 */
export function resourceUriOf(block: unknown): string | undefined {
  const b = block as { type?: unknown; uri?: unknown; resource?: { uri?: unknown } } | null;
  if (b?.type === 'resource_link') return typeof b.uri === 'string' ? b.uri : '';
  if (b?.type === 'resource') return typeof b.resource?.uri === 'string' ? b.resource.uri : '';
  return undefined;
}

/** Whether `block` names a resource that `mayReceive` refuses (a block naming none is never refused). */
export function refusesBlock(block: unknown, mayReceive: MayReceive): boolean {
  const uri = resourceUriOf(block);
  return uri !== undefined && !mayReceive(uri);
}
