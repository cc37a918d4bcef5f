/**
 * assetline as a library. The five commands, each returning the object its command prints with
 * `--json`: `validate`, `plan`, `run`, `report` and `merge`. Then the pieces under them: validating and
 * expanding pipelines, and the service catalogue. Named exports only; each comes from the module
 * that owns it. The sandbox is a separate entry, `assetline/sandbox`: importing the library never
 * loads it (nor sharp and libvips).
 */
export { merge, type MergeOptions } from './library/merge.js';
export { plan, type PlanOptions } from './library/plan.js';
export { report, type ReportOptions } from './library/report.js';
export { run, type RunOptions } from './library/run.js';
export { validate, type ValidateOptions } from './library/validate.js';
export type { MergeJson } from './merge/merge-json.js';
export type { PlanJson } from './plan/plan-json.js';
export type { ReportJson } from './report/report-json.js';
export type { RunJson } from './run/run-json.js';
export type { ValidationJson } from './pipeline/validation-json.js';
export { AssetlineError, EXIT, LockedError, UsageError } from './errors.js';
export { PipelineInvalidError } from './pipeline/pipeline-invalid-error.js';
export { RunUnreadableError } from './report/load-run.js';
export { MergeRefusedError } from './merge/merge-refused.js';

export { ALL_MODELS, findModel, modelsFor } from './catalog/models.js';
export { OPERATION_SPECS, OPERATIONS, type Operation } from './catalog/operations.js';
export type { CheckedPipeline, CheckedStep, ResolvedApi } from './pipeline/checked-pipeline.js';
export type { Expansion, SkippedInstance, StepInstance } from './pipeline/expansion.js';
export type { ImageInput } from './pipeline/params/image-input.js';
export type { OperationCall } from './pipeline/params/operation-params.js';
export { formatProblem, type Location, type Problem } from './pipeline/problem.js';
export { pipelineJsonSchema } from './pipeline/schema/json-schema.js';
export { type ValidationResult, validatePipelineFile, validatePipelineText } from './pipeline/validate-pipeline.js';
