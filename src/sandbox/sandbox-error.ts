/**
 * Every error the sandbox answers: the reference's table (status and code exactly as stated) and
 * the codes the sandbox chose where the reference names none. Thrown by validation, turned into
 * `{"success": false, "code", "message", "request_id"}` by the server.
 */
import { OPEN_ITEMS } from '../catalog/open-items.js';
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

export const ERROR_STATUS: Readonly<Record<string, number>> = {
  ...REFERENCE_CODES,
  ...OPEN_ITEMS.unnamedErrorCodes.sandbox,
};

export type SandboxErrorCode = keyof typeof REFERENCE_CODES | keyof typeof OPEN_ITEMS.unnamedErrorCodes.sandbox;

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
