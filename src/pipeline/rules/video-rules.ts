/** video: mode and model agree, the start image is there, durations and aspect ratios fit the model. */
import {
  ASPECT_RATIOS,
  allowsDuration,
  describeDurations,
  findModel,
  VIDEO_MODELS,
  VIDEO_MODES,
  type VideoMode,
  type VideoModel,
} from '../../catalog/models.js';
import { didYouMean } from '../did-you-mean.js';
import { type Finding, numeric, type Params, type StepRule, text } from './step-rule.js';

function videoModel(params: Params): VideoModel | undefined {
  const id = text(params, 'model');
  const model = id === undefined ? undefined : findModel(id);
  return model?.operation === 'video' ? model : undefined;
}

/** The client sends image-to-video when an image is set and mode is not (decisions.md). */
export function effectiveMode(params: Params): VideoMode {
  const mode = text(params, 'mode');
  if (mode === 'text-to-video' || mode === 'image-to-video') return mode;
  return params.image !== undefined ? 'image-to-video' : 'text-to-video';
}

export const videoMode: StepRule = {
  code: 'video-mode',
  operations: ['video'],
  reads: ['mode', 'model', 'image'],
  check: (params) => {
    const findings: Finding[] = [];
    const mode = text(params, 'mode');
    if (mode !== undefined && !(VIDEO_MODES as readonly string[]).includes(mode)) {
      return {
        field: 'mode',
        message: `expected text-to-video or image-to-video, got "${mode}"${didYouMean(mode, VIDEO_MODES)} (invalid_mode)`,
      };
    }
    const effective = effectiveMode(params);
    const model = videoModel(params);
    if (effective === 'image-to-video' && params.image === undefined) {
      findings.push({
        field: 'image',
        message: `image-to-video needs a start image: set image${model ? ` (model "${model.id}")` : ''} (missing_image)`,
      });
    } else if (mode === 'text-to-video' && params.image !== undefined) {
      findings.push({
        field: 'image',
        severity: 'warning',
        message: 'is set but mode is text-to-video: the image is not used',
      });
    }
    if (model && model.mode !== effective && params.image !== undefined) {
      const counterpart = VIDEO_MODELS.find(
        (candidate) => candidate.mode === effective && candidate.id === `${model.id}-i2v`,
      );
      const others = VIDEO_MODELS.filter((candidate) => candidate.mode === effective).map((candidate) => candidate.id);
      findings.push({
        field: 'model',
        message: `"${model.id}" is a ${model.mode} model, but this step is ${effective}${counterpart ? `; use "${counterpart.id}"` : `; ${effective} models: ${others.join(', ')}`}`,
      });
    }
    return findings;
  },
};

export const videoDuration: StepRule = {
  code: 'video-duration',
  operations: ['video'],
  reads: ['model', 'duration'],
  check: (params) => {
    const seconds = numeric(params, 'duration');
    if (seconds === undefined) return undefined;
    if (seconds < 1) return { field: 'duration', message: `expected a positive number of seconds, got ${seconds}` };
    const model = videoModel(params);
    if (!model || allowsDuration(model.durations, seconds)) return undefined;
    return {
      field: 'duration',
      message: `${seconds} s is not offered by "${model.id}": allowed ${describeDurations(model.durations)} seconds`,
    };
  },
};

export const videoAspectRatio: StepRule = {
  code: 'video-aspect-ratio',
  operations: ['video'],
  reads: ['model', 'aspect_ratio'],
  check: (params) => {
    const ratio = text(params, 'aspect_ratio');
    if (ratio === undefined) return undefined;
    if (!(ASPECT_RATIOS as readonly string[]).includes(ratio)) {
      return { field: 'aspect_ratio', message: `expected one of ${ASPECT_RATIOS.join(', ')}, got "${ratio}"` };
    }
    const model = videoModel(params);
    const offered = model?.aspectRatios;
    if (!model || !offered || (offered as readonly string[]).includes(ratio)) return undefined;
    return {
      field: 'aspect_ratio',
      severity: 'warning',
      message: `"${ratio}" is not offered by "${model.id}" (${offered.join(', ')}): the service falls back to the model's default`,
    };
  },
};
