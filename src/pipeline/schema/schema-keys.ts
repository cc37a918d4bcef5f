/**
 * The keys a strict object schema allows at a path, read from zod's definitions, so an unknown key
 * can be answered with "did you mean ...".
 */
import type * as z from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  valueType?: z.ZodType;
  in?: z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Unwrap optional/default/nullable/pipe layers down to the schema that decides the shape. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = defOf(current);
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) {
      current = def.innerType;
    } else if (def.type === 'pipe' && def.in) {
      current = def.in;
    } else {
      break;
    }
  }
  return current;
}

function candidates(schema: z.ZodType): z.ZodType[] {
  const inner = unwrap(schema);
  const def = defOf(inner);
  return def.type === 'union' && def.options ? def.options.flatMap(candidates) : [inner];
}

function childSchemas(schema: z.ZodType, segment: PropertyKey): z.ZodType[] {
  const out: z.ZodType[] = [];
  for (const candidate of candidates(schema)) {
    const def = defOf(candidate);
    if (def.type === 'object' && def.shape && typeof segment === 'string' && def.shape[segment])
      out.push(def.shape[segment]);
    else if (def.type === 'array' && def.element && typeof segment === 'number') out.push(def.element);
    else if (def.type === 'record' && def.valueType) out.push(def.valueType);
  }
  return out;
}

export function allowedKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let level = [schema];
  for (const segment of path) level = level.flatMap((s) => childSchemas(s, segment));
  const keys = new Set<string>();
  for (const s of level) {
    for (const candidate of candidates(s)) {
      const def = defOf(candidate);
      if (def.type === 'object' && def.shape) for (const key of Object.keys(def.shape)) keys.add(key);
    }
  }
  return [...keys];
}
