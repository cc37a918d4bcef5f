/** Run each step's rules once on its literal values, reporting at the field's own line and column. */
import type { CheckedStep, PipelineSettings } from './checked-pipeline.js';
import type { ProblemCollector } from './problem-collector.js';
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
        message: `${fieldLabel(step, finding.field)}: ${finding.message}`,
        location,
      });
    };
    for (const error of plan.staticErrors) report('field-type', error);
    const context: RuleContext = { operation: step.operation, limits: settings.limits, files };
    for (const rule of plan.staticRules) {
      for (const finding of asList(rule.check(plan.staticValues, context))) report(rule.code, finding);
    }
  }
}

/** `step "hero", generate.prompt`, or `defaults.generate.prompt (step "hero")` when it comes from defaults. */
export function fieldLabel(step: CheckedStep, field: string): string {
  const source = step.fields.get(field);
  if (source && source.path[0] === 'defaults') return `defaults.${step.operation}.${field} (step "${step.id}")`;
  return `step "${step.id}", ${step.operation}.${field}`;
}

export function asList(found: Finding | readonly Finding[] | undefined): readonly Finding[] {
  if (found === undefined) return [];
  return Array.isArray(found) ? found : [found as Finding];
}
