/** POST /v1/tts: an MP3 that grows with the text; its duration in the answer matches the file. */
import { TEXT_MAX_CHARS } from '../../catalog/limits.js';
import { DEFAULT_TTS_MODEL, findModel } from '../../catalog/models.js';
import { placeholderSpeech } from '../media/placeholder.js';
import { speak } from '../media/speech.js';
import { type Body, modelOf, optionalString, requiredText } from '../request-fields.js';
import { SandboxError } from '../sandbox-error.js';
import { TTS_VOICES } from '../sandbox-limits.js';
import { type CreateEndpoint, resultUrl } from './endpoint.js';

export const ttsEndpoint: CreateEndpoint = {
  path: '/v1/tts',
  operation: 'tts',
  async prepare(body: Body, { state }) {
    const text = requiredText(body, 'text', 'missing_text');
    const length = [...text].length;
    if (length > TEXT_MAX_CHARS)
      throw new SandboxError('text_too_long', `text is ${length} characters; the limit is ${TEXT_MAX_CHARS}`);
    const model = modelOf(body, 'tts', DEFAULT_TTS_MODEL);
    const voices = TTS_VOICES[model] ?? [];
    const voice = optionalString(body, 'voice_id') ?? voices[0] ?? 'default';
    if (!voices.includes(voice)) {
      throw new SandboxError(
        'invalid_voice_id',
        `voice_id "${voice}" is not available for ${model}; it has ${voices.join(', ')}`,
      );
    }
    const credits = findModel(model)?.credits ?? 0;
    return {
      credits,
      chargeNow: true,
      perform: () => {
        // Made now, not on download: the answer has to state its duration.
        const speech = state.media === 'placeholder' ? placeholderSpeech() : speak(text, voice, model === 'beta-tts');
        return {
          audio_url: resultUrl(state, 'audio/mpeg', () => Promise.resolve(speech.mp3)),
          duration_seconds: speech.durationSeconds,
          credits_used: credits,
        };
      },
    };
  },
};
