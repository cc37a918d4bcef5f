/** Models: valid for the step's operation (with a suggestion), and resolution/quality only where allowed. */
import { ALL_MODELS, findModel, modelsFor, QUALITIES, RESOLUTIONS } from '../../catalog/models.js';
import type { Operation } from '../../catalog/operations.js';
import { didYouMean } from '../did-you-mean.js';
import type { Finding, Params, StepRule } from './step-rule.js';
import { text } from './step-rule.js';

function checkModel(operation: Operation, params: Params): Finding | undefined {
  const id = text(params, 'model');
  if (id === undefined) return undefined;
  const model = findModel(id);
  if (model?.operation === operation) return undefined;
  const accepted = modelsFor(operation).map((candidate) => candidate.id);
  if (model) {
    return {
      field: 'model',
      message: `"${id}" is ${model.operation === 'edit' ? 'an' : 'a'} ${model.operation} model, not a ${operation} model; ${operation} takes ${accepted.join(', ')}`,
    };
  }
  const hint =
    didYouMean(id, accepted) ||
    didYouMean(
      id,
      ALL_MODELS.map((candidate) => candidate.id),
    );
  return {
    field: 'model',
    message: `unknown ${operation} model "${id}"${hint || `; ${operation} takes ${accepted.join(', ')}`}`,
  };
}

export const modelForOperation: StepRule = {
  code: 'model-for-operation',
  operations: ['generate', 'edit', 'video', 'tts'],
  reads: ['model'],
  check: (params, { operation }) => checkModel(operation, params),
};

export const resolutionAndQuality: StepRule = {
  code: 'resolution-quality',
  operations: ['generate', 'edit'],
  reads: ['model', 'resolution', 'quality'],
  check: (params) => {
    const findings: Finding[] = [];
    const id = text(params, 'model');
    const model = id === undefined ? undefined : findModel(id);
    const allowedBy = ALL_MODELS.filter(
      (candidate) => 'resolutionAndQuality' in candidate && candidate.resolutionAndQuality,
    );
    for (const [field, values] of [
      ['resolution', RESOLUTIONS],
      ['quality', QUALITIES],
    ] as const) {
      const value = text(params, field);
      if (value === undefined) continue;
      if (model && 'resolutionAndQuality' in model && !model.resolutionAndQuality) {
        const owners = allowedBy
          .filter((candidate) => candidate.operation === model.operation)
          .map((candidate) => candidate.id);
        findings.push({ field, message: `is accepted only with ${owners.join(', ')}, not with "${model.id}"` });
      } else if (!(values as readonly string[]).includes(value)) {
        findings.push({
          field,
          message: `expected one of ${values.join(', ')}, got "${value}"${didYouMean(value, values)}`,
        });
      }
    }
    return findings;
  },
};
