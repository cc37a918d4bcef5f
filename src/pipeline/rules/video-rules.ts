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
import { numeric, type Params, type StepRule, text } from './step-rule.js';

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

/** The same model in the other mode: gamma3.1 <-> gamma3.1-i2v, zeta-v1.5-pro-t2v <-> zeta-v1.5-pro-i2v. */
function twin(model: VideoModel): VideoModel | undefined {
  const base = model.id.replace(/-(i2v|t2v)$/, '');
  const wanted = model.mode === 'image-to-video' ? 'text-to-video' : 'image-to-video';
  return VIDEO_MODELS.find(
    (candidate) => candidate.mode === wanted && candidate.id.replace(/-(i2v|t2v)$/, '') === base,
  );
}

function useInstead(model: VideoModel): string {
  const other = twin(model);
  if (other) return `; use "${other.id}"`;
  const wanted = model.mode === 'image-to-video' ? 'text-to-video' : 'image-to-video';
  return `; ${wanted} models: ${VIDEO_MODELS.filter((candidate) => candidate.mode === wanted)
    .map((candidate) => candidate.id)
    .join(', ')}`;
}

export const videoMode: StepRule = {
  code: 'video-mode',
  operations: ['video'],
  reads: ['mode', 'model', 'image'],
  check: (params) => {
    const mode = text(params, 'mode');
    if (mode !== undefined && !(VIDEO_MODES as readonly string[]).includes(mode)) {
      return {
        field: 'mode',
        message: `expected text-to-video or image-to-video, got "${mode}"${didYouMean(mode, VIDEO_MODES)} (invalid_mode)`,
      };
    }
    const effective = effectiveMode(params);
    const model = videoModel(params);
    const hasImage = params.image !== undefined;
    if (model?.mode === 'image-to-video' && effective === 'text-to-video') {
      return mode === 'text-to-video'
        ? {
            field: 'mode',
            message: `is text-to-video, but "${model.id}" is an image-to-video model${useInstead(model)}`,
          }
        : {
            field: 'image',
            message: `"${model.id}" is an image-to-video model: set image to the start image (missing_image)`,
          };
    }
    if (model?.mode === 'text-to-video' && effective === 'image-to-video') {
      return {
        field: 'model',
        message: `"${model.id}" is a text-to-video model, but this step is image-to-video${useInstead(model)}`,
      };
    }
    if (effective === 'image-to-video' && !hasImage) {
      return { field: 'image', message: 'image-to-video needs a start image: set image (missing_image)' };
    }
    if (mode === 'text-to-video' && hasImage) {
      return {
        field: 'image',
        severity: 'warning',
        message: 'is set but mode is text-to-video: the image is not used',
      };
    }
    return undefined;
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
