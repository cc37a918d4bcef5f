/** Prompt and text: present, within the reference's limits, plain text for speech. */
import { PROMPT_MAX_CHARS, TEXT_MAX_CHARS } from '../../catalog/limits.js';
import { type Finding, formatCount, type Params, type StepRule, text } from './step-rule.js';

/** Characters as a person counts them (code points), not UTF-16 units; cheap when clearly short. */
export function characterCount(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++, count++) {
    // A high surrogate and the low one after it are one character.
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) i++;
  }
  return count;
}

function lengthFinding(
  params: Params,
  field: string,
  limit: number,
  emptyCode: string,
  longCode: string,
): Finding | undefined {
  const value = text(params, field);
  if (value === undefined) return undefined;
  if (value.trim() === '') return { field, message: `is empty (the service answers ${emptyCode})` };
  if (value.length <= limit) return undefined;
  const count = characterCount(value);
  if (count <= limit) return undefined;
  return {
    field,
    message: `is ${formatCount(count)} characters long; the limit is ${formatCount(limit)}${longCode ? ` (${longCode})` : ''}`,
  };
}

export const promptLength: StepRule = {
  code: 'prompt-length',
  operations: ['generate', 'edit', 'video'],
  reads: ['prompt'],
  check: (params) => lengthFinding(params, 'prompt', PROMPT_MAX_CHARS, 'missing_prompt', ''),
};

export const textLength: StepRule = {
  code: 'text-length',
  operations: ['tts'],
  reads: ['text'],
  check: (params) => lengthFinding(params, 'text', TEXT_MAX_CHARS, 'missing_text', 'text_too_long'),
};

const MARKUP = /<\/?[a-z][\w:-]*(\s[^<>]*)?\/?>/i;

export const ttsPlainText: StepRule = {
  code: 'tts-plain-text',
  operations: ['tts'],
  reads: ['text'],
  check: (params) => {
    const value = text(params, 'text');
    if (value === undefined || !MARKUP.test(value)) return undefined;
    return {
      field: 'text',
      severity: 'warning',
      message: 'looks like HTML or SSML markup; the service takes plain text only and may read the tags aloud',
    };
  },
};
