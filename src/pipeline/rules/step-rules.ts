/** Every step rule, in the order their findings read best. */
import { dimensions, numImages } from './generate-rules.js';
import { imageInput } from './image-rules.js';
import { modelForOperation, resolutionAndQuality } from './model-rules.js';
import type { StepRule } from './step-rule.js';
import { promptLength, textLength, ttsPlainText } from './text-rules.js';
import { scalePositive } from './upscale-rules.js';
import { videoAspectRatio, videoDuration, videoMode } from './video-rules.js';

export const STEP_RULES: readonly StepRule[] = [
  modelForOperation,
  resolutionAndQuality,
  promptLength,
  textLength,
  ttsPlainText,
  numImages,
  dimensions,
  videoMode,
  videoDuration,
  videoAspectRatio,
  scalePositive,
  imageInput,
];
