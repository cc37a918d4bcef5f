/** Suggest the closest known name for a misspelt one ("z-image-turbo2" → "z-image-turbo"). */

export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of candidates) {
    const distance = editDistance(needle, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance && candidate !== best) {
      tied = true;
    }
  }
  // Close enough to be a typo, not a different word: a third of the length, at least 2 edits.
  // A tie ("3k": 1k, 2k and 4k) is a guess, not a suggestion.
  const allowed = Math.max(2, Math.floor(input.length / 3));
  return bestDistance <= allowed && !tied ? best : undefined;
}

/** `; did you mean "x"?` or nothing. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closestMatch(input, candidates);
  return match === undefined ? '' : `; did you mean "${match}"?`;
}

/** Levenshtein distance with two rows; names here are short. */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length] ?? 0;
}
