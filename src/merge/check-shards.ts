/**
 * Whether the folders given are the shards of one run, from their manifests' heads alone, before
 * any row is read: one pipeline, one pipeline version, one shard count, each shard from one run,
 * none missing (unless allowed). Each rule that fails refuses the merge, naming the folders.
 *
 * The same shard run found twice (the same folder given twice, an artifact and a shared folder
 * holding it) is one shard with a copy; the rows of the copy are compared with it later. The same
 * shard from two different runs is refused: which one is meant is the user's call.
 */
import type { ManifestHead } from '../manifest/manifest-schema.js';
import { MergeRefusedError } from './merge-refused.js';
import { shardLabel } from './shard-id.js';
import type { ShardInput } from './shard-input.js';

export interface ShardSet {
  readonly pipeline: string;
  readonly version: string | undefined;
  readonly count: number;
  /** One input per shard present, by index. */
  readonly shards: readonly ShardInput[];
  /** Further copies of a shard run in `shards`, each with the one it copies. */
  readonly copies: readonly { readonly input: ShardInput; readonly of: ShardInput }[];
  /** The shards not found, by index (`2-of-4`). */
  readonly missing: readonly string[];
}

export function checkShards(inputs: readonly ShardInput[], allowMissing: boolean): ShardSet {
  const [first] = inputs;
  if (!first) throw new MergeRefusedError('no output folders given');
  for (const input of inputs)
    if (input.head.merged_from !== undefined)
      throw new MergeRefusedError(`${input.shown} is the result of a merge, not a shard: give the shard folders`);
  sameEverywhere(inputs, 'pipelines', (head) => head.pipeline);
  // An unsharded run merges on its own (a copy of it too): with anything else it is not a shard.
  const unsharded = inputs.filter((input) => !input.sharded);
  if (unsharded.length > 0 && inputs.some((input) => input.sharded || input.head.run_id !== first.head.run_id)) {
    const names = unsharded.map((input) => input.shown).join(', ');
    throw new MergeRefusedError(
      `${names}: not a shard (no \`shard\` in its manifest): an unsharded run can only be merged on its own; merge combines the shards of one \`run --shard\``,
    );
  }
  sameEverywhere(
    inputs,
    'pipeline versions',
    (head) => head.pipeline_version ?? 'none (made by an older assetline)',
    'the shards must be runs of one checkout of the pipeline and its rows',
  );
  sameEverywhere(inputs, 'services', (head) => (head.sandbox ? 'the sandbox' : 'the service'));
  sameEverywhere(inputs, 'shard counts', (head) => String(head.shard?.count ?? 1));

  const byLabel = new Map<string, ShardInput[]>();
  for (const input of inputs) byLabel.set(input.label, [...(byLabel.get(input.label) ?? []), input]);
  const copies: ShardSet['copies'][number][] = [];
  for (const [label, group] of byLabel) {
    const [kept, ...others] = group as [ShardInput, ...ShardInput[]];
    const other = others.find((input) => input.head.run_id !== kept.head.run_id);
    if (other)
      throw new MergeRefusedError(
        `shard ${label} is there twice, from two runs: ${kept.head.run_id} in ${kept.shown} and ${other.head.run_id} in ${other.shown}; give only the one to merge`,
      );
    for (const input of others) copies.push({ input, of: kept });
  }

  const count = first.id.count;
  const shards = [...byLabel.values()].map((group) => group[0] as ShardInput).sort((a, b) => a.id.index - b.id.index);
  const present = new Set(shards.map((input) => input.id.index));
  const missing = Array.from({ length: count }, (_, i) => i + 1)
    .filter((index) => !present.has(index))
    .map((index) => shardLabel({ index, count }));
  if (missing.length > 0 && !allowMissing) {
    const found = shards.map((input) => `${input.label} in ${input.shown}`).join(', ');
    throw new MergeRefusedError(
      `missing shards: ${listed(missing)} (found ${found}); give every shard's folder, or pass --allow-missing to merge what is there`,
    );
  }
  return { pipeline: first.head.pipeline, version: first.head.pipeline_version, count, shards, copies, missing };
}

/** Names shown in a message at most: a thousand missing shards are a count, not a list. */
const NAMES_SHOWN = 20;

function listed(names: readonly string[]): string {
  if (names.length <= NAMES_SHOWN) return names.join(', ');
  return `${names.slice(0, NAMES_SHOWN).join(', ')} and ${names.length - NAMES_SHOWN} more`;
}

/** Refuses unless `property` is the same in every input, naming the folders of each value. */
function sameEverywhere(
  inputs: readonly ShardInput[],
  what: string,
  property: (head: ManifestHead) => string,
  hint?: string,
): void {
  const folders = new Map<string, string[]>();
  for (const input of inputs) {
    const value = property(input.head);
    folders.set(value, [...(folders.get(value) ?? []), input.shown]);
  }
  if (folders.size <= 1) return;
  const each = [...folders].map(([value, shown]) => `${value} (${shown.join(', ')})`).join('; ');
  throw new MergeRefusedError(`the folders are of different ${what}: ${each}${hint ? `; ${hint}` : ''}`);
}
