/**
 * One output folder a merge reads: its manifest's head, read first and alone, and its rows, read
 * as they come (twice: once to check them, once to write them), each checked against the schema.
 * A manifest not laid out as assetline writes it (edited by hand) is read whole instead.
 */
import path from 'node:path';
import { type ManifestHead, type ManifestRowEntry, manifestRowSchema } from '../manifest/manifest-schema.js';
import { notAManifest, readManifest, readManifestHead, readManifestRows } from '../manifest/read-manifest.js';
import { PIPELINE_NAME_PATTERN } from '../pipeline/schema/pipeline-schema.js';
import type { FoundFolder } from './find-outputs.js';
import { MergeRefusedError } from './merge-refused.js';
import { type ShardId, shardLabel, shardOf } from './shard-id.js';

/** More shards than any matrix runs: a count past it is a damaged manifest, not a plan to list. */
const MAX_SHARDS = 10_000;

export interface ShardInput extends FoundFolder {
  readonly manifestFile: string;
  readonly head: ManifestHead;
  /** `1-of-1` for an unsharded run. */
  readonly id: ShardId;
  readonly label: string;
  /** The manifest says which shard it is (`run --shard`). */
  readonly sharded: boolean;
  /** The rows in the manifest's order, each checked against the schema. */
  readonly rows: () => AsyncGenerator<ManifestRowEntry>;
}

export async function openShard(folder: FoundFolder): Promise<ShardInput> {
  const manifestFile = path.join(folder.dir, 'manifest.json');
  const shownFile = path.join(folder.shown, 'manifest.json');
  const streamed = await readManifestHead(manifestFile);
  let head: ManifestHead;
  let held: readonly ManifestRowEntry[] | undefined;
  if (streamed) head = streamed;
  else {
    const whole = await readManifest(manifestFile);
    if (!whole) throw new MergeRefusedError(`${shownFile}: no such file`);
    ({ rows: held, ...head } = whole);
  }
  // The merged folder is named after the pipeline: a name that could lead elsewhere is refused.
  if (!PIPELINE_NAME_PATTERN.test(head.pipeline))
    throw new MergeRefusedError(`${shownFile}: pipeline name ${JSON.stringify(head.pipeline)} is not a folder name`);
  const id = shardOf(head);
  if (id.index > id.count) throw new MergeRefusedError(`${shownFile}: shard ${id.index} of ${id.count} does not exist`);
  if (id.count > MAX_SHARDS)
    throw new MergeRefusedError(`${shownFile}: ${id.count} shards: merge takes at most ${MAX_SHARDS}`);
  const rows = held ? heldRows(held) : () => checkedRows(manifestFile, shownFile);
  return { ...folder, manifestFile, head, id, label: shardLabel(id), sharded: head.shard !== undefined, rows };
}

function heldRows(rows: readonly ManifestRowEntry[]): () => AsyncGenerator<ManifestRowEntry> {
  // Checked by readManifest with the rest.
  return async function* () {
    yield* rows;
  };
}

async function* checkedRows(file: string, shownFile: string): AsyncGenerator<ManifestRowEntry> {
  let index = 0;
  for await (const row of readManifestRows(file)) {
    const checked = manifestRowSchema.safeParse(row);
    if (!checked.success)
      throw notAManifest(
        shownFile,
        checked.error.issues.map((issue) => ({ ...issue, path: ['rows', index, ...issue.path] })),
      );
    index++;
    yield checked.data;
  }
}
