/** `priority:`: rows with a higher value start first; bad values are problems at their row. */
import { describe, expect, it } from 'vitest';
import { priorityOrder } from '../../src/pipeline/row-priority.js';
import { lines, validateYaml } from '../helpers/temp-pipeline.js';

const pipeline = (priority: string, rows: string) => `version: 1
name: t
priority: "${priority}"
row_key: sku
rows:
${rows}
steps:
  - id: voice
    tts: { text: "\${{ row.sku }}" }
`;

const ROWS = [
  '  - { sku: A, urgency: 1 }',
  '  - { sku: B, urgency: "" }',
  '  - { sku: C, urgency: 5 }',
  '  - { sku: D, urgency: 1 }',
].join('\n');

describe('priority', () => {
  it('orders rows highest first; ties and empty cells (0) keep the sheet order', async () => {
    const result = await validateYaml(pipeline('${{ row.urgency }}', ROWS));
    expect(lines(result)).toEqual([]);
    const order = [...(result.expansion?.rowOrder() ?? [])].map((row) => result.expansion?.rowKeys[row]);
    expect(order).toEqual(['C', 'A', 'D', 'B']);
    expect(result.expansion?.prioritised).toBe(true);
  });

  it('is the sheet order without a priority', async () => {
    const result = await validateYaml(pipeline('${{ row.urgency }}', ROWS).replace(/^priority:.*\n/m, ''));
    expect([...(result.expansion?.rowOrder() ?? [])]).toEqual([0, 1, 2, 3]);
    expect(result.expansion?.prioritised).toBe(false);
  });

  it('refuses a value that is not a number, at its row', async () => {
    const result = await validateYaml(pipeline('${{ row.urgency }}', ROWS.replace('urgency: 5', 'urgency: high')));
    expect(lines(result)).toEqual([
      'pipeline.yaml:8:5: row "C", priority: expected a number (higher runs first), got "high"',
    ]);
  });

  it('refuses an unknown column with a did-you-mean, a step output, and a constant', async () => {
    expect(lines(await validateYaml(pipeline('${{ row.urgncy }}', ROWS)))).toEqual([
      'pipeline.yaml:3:11: priority: unknown column "urgncy" in ${{ row.urgncy }}: the rows have sku, urgency; did you mean "urgency"?',
    ]);
    expect(lines(await validateYaml(pipeline('${{ steps.voice.output }}', ROWS)))[0]).toContain(
      'priority: can use row values only, not ${{ steps.voice.output }}',
    );
    expect(lines(await validateYaml(pipeline('7', ROWS)))[0]).toContain('priority: expected a row value such as');
  });

  it('sorts 100,000 rows stably', () => {
    const priorities = Float64Array.from({ length: 100_000 }, (_, row) => row % 3);
    const order = priorityOrder(priorities);
    expect(order[0]).toBe(2);
    expect(order[1]).toBe(5);
    expect(order[99_999]).toBe(99_999);
  });
});
