/**
 * The steps as written, before any checking: each id's first position in `steps:`, and every
 * `steps.<id>` it names. Reference checks ask it where a step is and, for a reference to a later
 * step, whether the two form a cycle.
 */
import { parseTemplate } from './template/template-syntax.js';

export class StepGraph {
  readonly #order = new Map<string, number>();
  readonly #references = new Map<string, Set<string>>();

  constructor(rawSteps: readonly unknown[]) {
    rawSteps.forEach((step, index) => {
      const id = rawStepId(step);
      if (id === undefined) return;
      if (!this.#order.has(id)) this.#order.set(id, index);
      const references = this.#references.get(id) ?? new Set<string>();
      for (const target of rawStepRefs(step)) references.add(target);
      this.#references.set(id, references);
    });
  }

  /** Where the step first appears in `steps:`, if any step has this id. */
  position(id: string): number | undefined {
    return this.#order.get(id);
  }

  ids(): Iterable<string> {
    return this.#order.keys();
  }

  /** If `from` uses `to`, directly or through other steps, the chain from `from` to `to`. */
  pathBetween(from: string, to: string): string[] | undefined {
    const seen = new Set<string>();
    const walk = (id: string): string[] | undefined => {
      if (id === to) return [id];
      if (seen.has(id)) return undefined;
      seen.add(id);
      for (const next of this.#references.get(id) ?? []) {
        const rest = walk(next);
        if (rest) return [id, ...rest];
      }
      return undefined;
    };
    return walk(from);
  }
}

function rawStepId(step: unknown): string | undefined {
  if (typeof step !== 'object' || step === null) return undefined;
  const id = (step as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Every steps.<id> named anywhere in a raw step. */
function rawStepRefs(step: unknown): string[] {
  const out: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const part of parseTemplate(value).parts)
        if (part.kind === 'ref' && part.ref.kind === 'step') out.push(part.ref.step);
    } else if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (typeof value === 'object' && value !== null) {
      Object.values(value).forEach(visit);
    }
  };
  visit(step);
  return out;
}
