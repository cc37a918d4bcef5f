/** Run each step's rules once on its literal values, reporting at the field's own line and column. */
import type { PipelineSettings } from './checked-pipeline.js';
import { fieldLabel } from './field-label.js';
import type { ProblemCollector } from './problem-collector.js';
import { controlCharacterFindings } from './rules/control-characters.js';
import type { ImageFileInspector } from './rules/image-file-inspector.js';
import type { Finding, RuleContext } from './rules/step-rule.js';
import type { StepPlan } from './step-values.js';
import type { YamlLocator } from './yaml/yaml-locator.js';

export function runStaticPass(
  plans: readonly StepPlan[],
  settings: PipelineSettings,
  files: ImageFileInspector,
  locator: YamlLocator,
  collector: ProblemCollector,
): void {
  for (const plan of plans) {
    const { step } = plan;
    const report = (code: string, finding: Finding) => {
      const field = step.fields.get(finding.field);
      const location = field
        ? locator.locate(field.path)
        : locator.locate([...step.path, step.operation], { key: true });
      collector.add({
        severity: finding.severity ?? 'error',
        code,
        message: `${fieldLabel(step.id, step.operation, finding.field, field?.path ?? step.path)}: ${finding.message}`,
        location,
      });
    };
    for (const error of plan.staticErrors) report('field-type', error);
    const literals = Object.keys(plan.staticValues);
    for (const finding of controlCharacterFindings(plan.staticValues, literals)) report('control-character', finding);
    const context: RuleContext = { operation: step.operation, limits: settings.limits, files };
    for (const rule of plan.staticRules) {
      for (const finding of asList(rule.check(plan.staticValues, context))) report(rule.code, finding);
    }
  }
}

export function asList(found: Finding | readonly Finding[] | undefined): readonly Finding[] {
  if (found === undefined) return [];
  return Array.isArray(found) ? found : [found as Finding];
}
