/**
 * POST /v1/video: submit a job (charged at completion). Mode is inferred from the image when
 * absent; the model must do that mode; the duration must be one the model offers (default: its
 * first); an aspect ratio the model does not offer falls back to its first one (image-to-video
 * models, whose ratios are not published, take any of the three).
 */
import {
  ASPECT_RATIOS,
  allowsDuration,
  describeDurations,
  findModel,
  VIDEO_MODES,
  type VideoModel,
} from '../../catalog/models.js';
import { OPEN_ITEMS } from '../../catalog/open-items.js';
import { DEFAULT_VIDEO_MS } from '../sandbox-config.js';
import { type Body, modelOf, optionalInteger, optionalString, prompt } from '../request-fields.js';
import { SandboxError } from '../sandbox-error.js';
import { type CreateEndpoint, requestImage } from './endpoint.js';

const FIELDS = OPEN_ITEMS.videoFieldNames.sandbox;

export interface VideoTiming {
  readonly durationMs: number;
  readonly pendingShare: number;
}

export function videoEndpoint(
  timing: VideoTiming = { durationMs: DEFAULT_VIDEO_MS, pendingShare: 0.3 },
): CreateEndpoint {
  return {
    path: '/v1/video',
    operation: 'video',
    async prepare(body: Body, { state, faults, accountName, idempotencyKey }) {
      const text = prompt(body);
      const model = findModel(modelOf(body, 'video')) as VideoModel;
      const mode = optionalString(body, 'mode');
      if (mode !== undefined && !(VIDEO_MODES as readonly string[]).includes(mode)) {
        throw new SandboxError('invalid_mode', `mode must be text-to-video or image-to-video, got "${mode}"`);
      }
      const hasImage = body.image !== undefined && body.image !== null && body.image !== '';
      const effective = mode ?? (hasImage ? 'image-to-video' : 'text-to-video');
      if (effective === 'image-to-video' && !hasImage)
        throw new SandboxError('missing_image', 'image-to-video needs an image');
      if (model.mode !== effective)
        throw new SandboxError('invalid_model', `${model.id} is a ${model.mode} model, not ${effective}`);
      const seconds = optionalInteger(body, FIELDS.duration, 'invalid_duration') ?? firstDuration(model);
      if (!allowsDuration(model.durations, seconds)) {
        throw new SandboxError(
          'invalid_duration',
          `${model.id} makes ${describeDurations(model.durations)} second clips, not ${seconds}`,
        );
      }
      const startImage = effective === 'image-to-video' ? await requestImage(state, body.image, true) : undefined;
      const aspectRatio = ratioFor(model, optionalString(body, FIELDS.aspect_ratio));
      const durationMs = faults.videoMs ?? timing.durationMs;
      return {
        credits: model.credits ?? 0,
        chargeNow: false,
        perform: (requestId) => {
          state.jobs.submit({
            id: requestId,
            account: accountName,
            credits: model.credits ?? 0,
            idempotencyKey,
            createdAt: state.now(),
            durationMs,
            pendingMs: durationMs * timing.pendingShare,
            failure: faults.videoError ? 'generation failed (sandbox fault)' : undefined,
            clip: { prompt: text, startImage, aspectRatio, seconds },
          });
          return { status: 'pending' };
        },
      };
    },
  };
}

function firstDuration(model: VideoModel): number {
  return model.durations.kind === 'list' ? (model.durations.values[0] as number) : model.durations.min;
}

function ratioFor(model: VideoModel, requested: string | undefined): string {
  const offered: readonly string[] = model.aspectRatios ?? ASPECT_RATIOS;
  if (requested !== undefined && offered.includes(requested)) return requested;
  return offered[0] as string;
}
