/**
 * Unknown keys in a config file, explained: the closest key the schema accepts at that
 * place ("did you mean max_visible?") and the list of keys it takes. The keys are read
 * from the zod schema itself, so they cannot drift from what is accepted.
 */
import type { z } from 'zod';
import { closest } from '../policy/patterns.js';
import { remoteUpstreamSchema, stdioUpstreamSchema, upstreamSchema } from './schema.js';

/** What zod 4 keeps of a schema's definition, as far as finding object keys needs it. */
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const child = (data: unknown, key: PropertyKey): unknown => (data && typeof data === 'object' ? (data as Record<PropertyKey, unknown>)[key] : undefined);

/** Whether `data` names this object option of a union by one of its literal keys (`provider: use`). */
function namedBy(option: z.ZodType, data: unknown): boolean {
  const shape = defOf(option).shape ?? {};
  return Object.entries(shape).some(([key, s]) => {
    const d = defOf(s) as Def & { values?: unknown[] };
    return d.type === 'literal' && (d.values ?? []).includes(child(data, key));
  });
}

/** The keys the object at `path` of `schema` accepts ([] where the schema takes any key or none is known). */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[], data: unknown): string[] {
  // An upstream is one of two shapes, picked by its keys (schema.ts upstreamSchema); with neither `command` nor `url`, the keys of both.
  if (schema === upstreamSchema) {
    if (child(data, 'command') !== undefined) return keysAt(stdioUpstreamSchema, path, data);
    if (child(data, 'url') !== undefined) return keysAt(remoteUpstreamSchema, path, data);
    return [...new Set([...keysAt(stdioUpstreamSchema, path, data), ...keysAt(remoteUpstreamSchema, path, data)])];
  }
  const def = defOf(schema);
  const [head, ...rest] = path;
  switch (def.type) {
    case 'object':
      if (head === undefined) return Object.keys(def.shape ?? {});
      return def.shape?.[String(head)] ? keysAt(def.shape[String(head)]!, rest, child(data, head)) : [];
    case 'default':
    case 'prefault':
    case 'optional':
    case 'nullable':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return keysAt(def.innerType!, path, data);
    case 'pipe': {
      const out = keysAt(def.out!, path, data);
      return out.length > 0 ? out : keysAt(def.in!, path, data);
    }
    case 'record':
      return head === undefined ? [] : keysAt(def.valueType!, rest, child(data, head));
    case 'array':
      return head === undefined ? [] : keysAt(def.element!, rest, child(data, head));
    case 'union': {
      // A discriminated union (curator.embedder by `provider`): the option the data names, else all.
      const options = def.options ?? [];
      const named = options.filter((o) => namedBy(o, data));
      return [...new Set((named.length > 0 ? named : options).flatMap((o) => keysAt(o, path, data)))];
    }
    default:
      return [];
  }
}

/**
 * The message of an unknown-key issue with the closest accepted key and the accepted list,
 * e.g. `unknown key "max_visibel"; did you mean "max_visible"? (exposure takes pinned, max_visible, mode)`.
 * Other issues keep zod's message.
 */
export function explainIssue(schema: z.ZodType, issue: z.core.$ZodIssue, data: unknown): { path: PropertyKey[]; message: string } {
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : /^Unrecognized keys?: (.+)$/.exec(issue.message)?.[1]?.match(/"([^"]+)"/g)?.map((k) => k.slice(1, -1));
  if (!keys || keys.length === 0) return { path: issue.path, message: issue.message };
  const accepted = keysAt(schema, issue.path, data);
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the top level';
  const key = keys[0]!;
  const near = closest(key, accepted);
  const more = keys.length > 1 ? ` (and ${keys.slice(1).map((k) => `"${k}"`).join(', ')})` : '';
  const list = accepted.length > 0 ? ` (${where} takes ${accepted.join(', ')})` : '';
  return { path: [...issue.path, key], message: `unknown key "${key}"${more}${near ? `; did you mean "${near}"?` : ''}${list}` };
}
