/**
 * Control characters in a value sent to the service: NUL and the other C0 controls and DEL, except
 * tab, line feed and carriage return. They come from broken exports and binary pasted into cells,
 * and the service would receive them as they are.
 */
import type { Finding } from './step-rule.js';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

const NAMES: Readonly<Record<number, string>> = { 0x00: 'NUL', 0x1b: 'ESC', 0x7f: 'DEL' };

/** One finding per field (or list item) of `fields` whose text holds a control character. */
export function controlCharacterFindings(
  values: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): Finding[] {
  const findings: Finding[] = [];
  for (const field of fields) {
    const value = values[field];
    if (typeof value === 'string') {
      const finding = check(field, value);
      if (finding) findings.push(finding);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        const finding = typeof item === 'string' ? check(`${field}[${index}]`, item) : undefined;
        if (finding) findings.push(finding);
      });
    }
  }
  return findings;
}

function check(field: string, text: string): Finding | undefined {
  const match = CONTROL.exec(text);
  if (!match) return undefined;
  const code = match[0].charCodeAt(0);
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES[code] ? `${hex}, ${NAMES[code]}` : hex;
  return {
    field,
    message: `contains a control character (${name}) at character ${match.index + 1}; only tab and line breaks are allowed in text sent to the service`,
  };
}
