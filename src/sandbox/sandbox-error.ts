/**
 * Every error the sandbox answers: the reference's table (status and code exactly as stated) and
 * the codes the sandbox chose where the reference names none. Thrown by validation, turned into
 * `{"success": false, "code", "message", "request_id"}` by the server.
 */
import { AssetlineError, EXIT } from '../errors.js';

const REFERENCE_CODES = {
  missing_prompt: 400,
  invalid_model: 400,
  invalid_dimensions: 400,
  missing_text: 400,
  text_too_long: 400,
  invalid_voice_id: 400,
  invalid_mode: 400,
  missing_image: 400,
  invalid_image_format: 400,
  image_too_large: 400,
  invalid_scale: 400,
  invalid_api_key: 401,
  insufficient_credits: 402,
  rate_limit_exceeded: 429,
} as const;

/**
 * Conditions the reference implies but names no code for (a prompt over 4,000 characters,
 * num_images over 4...): the sandbox answers with these.
 */
const UNNAMED_CODES = {
  prompt_too_long: 400,
  invalid_num_images: 400,
  invalid_parameter: 400,
  invalid_duration: 400,
  invalid_json: 400,
  request_too_large: 413,
  job_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
} as const;

export const ERROR_STATUS: Readonly<Record<string, number>> = { ...REFERENCE_CODES, ...UNNAMED_CODES };

export type SandboxErrorCode = keyof typeof REFERENCE_CODES | keyof typeof UNNAMED_CODES;

/**
 * A refusal the sandbox answers with. It never ends a command: one that escapes the server is a bug
 * (exit 70).
 */
export class SandboxError extends AssetlineError {
  declare readonly code: 'sandbox-refused';
  /** The code in the answer's body: the reference's, or the sandbox's own. */
  readonly serviceCode: SandboxErrorCode;
  readonly status: number;
  /** Seconds, for 429 answers. */
  readonly retryAfter: number | undefined;

  constructor(code: SandboxErrorCode, message: string, retryAfter?: number) {
    super('sandbox-refused', message, EXIT.internal);
    this.name = 'SandboxError';
    this.serviceCode = code;
    this.status = ERROR_STATUS[code] ?? 400;
    this.retryAfter = retryAfter;
  }
}
