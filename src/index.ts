/**
 * assetline as a library: validate and expand pipelines, and read the service catalogue.
 * Named exports only; each comes from the module that owns it. The sandbox is a separate entry,
 * `assetline/sandbox`: importing the library never loads it (nor sharp and libvips).
 */
export { ALL_MODELS, findModel, modelsFor } from './catalog/models.js';
export { OPERATION_SPECS, OPERATIONS, type Operation } from './catalog/operations.js';
export type { CheckedPipeline, CheckedStep, ResolvedApi } from './pipeline/checked-pipeline.js';
export type { Expansion, SkippedInstance, StepInstance } from './pipeline/expansion.js';
export type { ImageInput } from './pipeline/params/image-input.js';
export type { OperationCall } from './pipeline/params/operation-params.js';
export { formatProblem, type Location, type Problem } from './pipeline/problem.js';
export { pipelineJsonSchema } from './pipeline/schema/json-schema.js';
export { type ValidationResult, validatePipelineFile, validatePipelineText } from './pipeline/validate-pipeline.js';
