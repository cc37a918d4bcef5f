/**
 * The names of the API's six operations, apart from their specifications (operations.ts) so that
 * the model catalogue can name them without importing the specifications, which read it.
 */
export const OPERATIONS = ['generate', 'edit', 'video', 'tts', 'upscale', 'remove-bg'] as const;
export type Operation = (typeof OPERATIONS)[number];
