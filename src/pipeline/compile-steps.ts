/**
 * Compile each step: merge `defaults:` under its parameters, parse every template, and check what
 * templates point at: row columns that exist; step outputs of earlier steps only (no later steps,
 * no cycles), of image kind, within the number of outputs the step makes; step outputs only as the
 * whole value of an image field. Required fields are checked here too, after defaults.
 */
import { type FieldSpec, OPERATION_SPECS, OPERATIONS, type Operation } from '../catalog/operations.js';
import { type CheckedStep, type FieldValue, type StepField, stepRetries, stepTimeoutMs } from './checked-pipeline.js';
import { didYouMean } from './did-you-mean.js';
import { fieldLabel } from './field-label.js';
import type { FilePosition } from './problem.js';
import type { ProblemCollector } from './problem-collector.js';
import type { PipelineInput } from './schema/pipeline-schema.js';
import type { StepInput } from './schema/step-schema.js';
import { templatePosition } from './template/template-position.js';
import { StepGraph } from './step-graph.js';
import { hasTemplate, type ParsedTemplate, parseTemplate, type TemplatePart } from './template/template-syntax.js';
import type { DataPath, YamlLocator } from './yaml/yaml-locator.js';

/** A `steps.x.outputs[i]` whose validity depends on a per-row `num_images`: checked row by row. */
export interface OutputIndexCheck {
  readonly consumer: string;
  readonly field: string;
  readonly target: string;
  readonly index: number;
}

export interface CompileInput {
  readonly input: PipelineInput;
  /** Every entry of `steps:` as written, valid or not, so ids and references are known. */
  readonly rawSteps: readonly unknown[];
  /** The entries that passed the schema, by position. */
  readonly validSteps: ReadonlyMap<number, StepInput>;
  readonly columns: readonly string[];
  readonly hasRows: boolean;
  /** False when the rows could not be read: column references are then not judged. */
  readonly knownColumns: boolean;
  readonly locator: YamlLocator;
  readonly sourceText: string;
  readonly collector: ProblemCollector;
}

export interface CompiledSteps {
  readonly steps: CheckedStep[];
  readonly outputIndexChecks: OutputIndexCheck[];
}

export function compileSteps(context: CompileInput): CompiledSteps {
  return new StepCompiler(context).compile();
}

class StepCompiler {
  readonly #context: CompileInput;
  readonly #graph: StepGraph;
  readonly #compiled = new Map<string, CheckedStep>();
  readonly #outputIndexChecks: OutputIndexCheck[] = [];

  constructor(context: CompileInput) {
    this.#context = context;
    this.#graph = new StepGraph(context.rawSteps);
  }

  compile(): CompiledSteps {
    const steps: CheckedStep[] = [];
    for (const [index, step] of [...this.#context.validSteps].sort(([a], [b]) => a - b)) {
      const compiled = this.#compileStep(index, step);
      if (compiled) {
        steps.push(compiled);
        if (!this.#compiled.has(compiled.id)) this.#compiled.set(compiled.id, compiled);
      }
    }
    return { steps, outputIndexChecks: this.#outputIndexChecks };
  }

  #compileStep(index: number, step: StepInput): CheckedStep | undefined {
    const operation = OPERATIONS.find((name) => step[name] !== undefined);
    if (!operation) return undefined;
    const stepPath: DataPath = ['steps', index];
    const params = (step[operation] ?? {}) as Readonly<Record<string, unknown>>;
    const defaults = (this.#context.input.defaults?.[operation] ?? {}) as Readonly<Record<string, unknown>>;
    const fields = new Map<string, StepField>();
    const dependsOn = new Set<string>();

    for (const [name, spec] of Object.entries(OPERATION_SPECS[operation].fields)) {
      const own = params[name];
      const raw = own !== undefined ? own : defaults[name];
      if (raw === undefined) {
        if (spec.required) this.#missing(step.id, operation, name, stepPath);
        continue;
      }
      const path: DataPath = own !== undefined ? [...stepPath, operation, name] : ['defaults', operation, name];
      const label = fieldLabel(step.id, operation, name, path);
      const value = this.#compileValue(raw as string | number, {
        label,
        step: step.id,
        index,
        operation,
        field: name,
        spec,
        path,
      });
      if (!value) continue;
      if (value.kind === 'output') dependsOn.add(value.step);
      fields.set(name, { value, path });
    }

    return {
      id: step.id,
      index,
      operation,
      path: stepPath,
      fields,
      when: this.#compileWhen(step, stepPath),
      retries: stepRetries(this.#context.input, step.retries),
      timeoutMs: stepTimeoutMs(this.#context.input, step.timeout),
      position: this.#context.locator.locate(stepPath),
      dependsOn: [...dependsOn],
    };
  }

  #missing(stepId: string, operation: Operation, field: string, stepPath: DataPath): void {
    this.#context.collector.error(
      'required-field',
      `step "${stepId}", ${operation}: missing required field "${field}" (set it in the step or in defaults.${operation})`,
      this.#context.locator.locate([...stepPath, operation], { key: true }),
    );
  }

  #compileWhen(step: StepInput, stepPath: DataPath): StepField | undefined {
    if (step.when === undefined) return undefined;
    const path: DataPath = [...stepPath, 'when'];
    if (typeof step.when === 'boolean') return { value: { kind: 'static', value: step.when }, path };
    const label = `step "${step.id}", when`;
    const template = this.#parse(step.when, path, label);
    if (!template) return undefined;
    let ok = true;
    this.#eachRef(template, (part) => {
      if (part.ref.kind === 'step') {
        this.#error(
          'when-step-output',
          `step "${step.id}", when: can use row values only, not ${part.source}`,
          path,
          step.when as string,
          part,
        );
        ok = false;
      } else if (!this.#checkColumn(part.ref.column, label, path, step.when as string, part)) {
        ok = false;
      }
    });
    return ok ? { value: { kind: 'template', template }, path } : undefined;
  }

  #compileValue(raw: string | number, site: FieldSite): FieldValue | undefined {
    if (typeof raw !== 'string' || !hasTemplate(raw)) return { kind: 'static', value: raw };
    const template = this.#parse(raw, site.path, site.label);
    if (!template) return undefined;
    let ok = true;
    let output: FieldValue | undefined;
    this.#eachRef(template, (part) => {
      if (part.ref.kind === 'row') {
        ok = this.#checkColumn(part.ref.column, site.label, site.path, raw, part) && ok;
        return;
      }
      const whole = template.parts.length === 1;
      if (site.spec.kind !== 'image' || !whole) {
        const rule =
          site.spec.kind === 'image'
            ? 'can only be the whole value of an image field, with no text around it'
            : 'can only be used as the value of an image field (image:)';
        this.#error('step-output-placement', `${site.label}: ${part.source} ${rule}`, site.path, raw, part);
        ok = false;
        return;
      }
      if (this.#checkStepRef(part.ref.step, part.ref.index, site, raw, part)) {
        output = { kind: 'output', step: part.ref.step, index: part.ref.index };
      } else {
        ok = false;
      }
    });
    if (!ok) return undefined;
    return output ?? { kind: 'template', template };
  }

  #parse(text: string, path: DataPath, label: string): ParsedTemplate | undefined {
    const template = parseTemplate(text);
    for (const error of template.errors) {
      this.#context.collector.error(
        'template-syntax',
        `${label}: ${error.message}`,
        this.#position(path, text, error.start),
      );
    }
    return template.errors.length === 0 ? template : undefined;
  }

  #eachRef(template: ParsedTemplate, visit: (part: Extract<TemplatePart, { kind: 'ref' }>) => void): void {
    for (const part of template.parts) if (part.kind === 'ref') visit(part);
  }

  #checkColumn(
    column: string,
    label: string,
    path: DataPath,
    text: string,
    part: Extract<TemplatePart, { kind: 'ref' }>,
  ): boolean {
    const { columns, hasRows, knownColumns } = this.#context;
    if (columns.includes(column) || (hasRows && !knownColumns)) return true;
    if (!hasRows) {
      this.#error(
        'template-row-column',
        `${part.source} uses a row column, but the pipeline has no rows: add rows: (a list, or { file: rows.csv })`,
        path,
        text,
        part,
      );
      return false;
    }
    const known = columns.length > 12 ? `${columns.slice(0, 12).join(', ')}, ...` : columns.join(', ');
    this.#error(
      'template-row-column',
      `${label}: unknown column "${column}" in ${part.source}: the rows have ${known || 'no columns'}${didYouMean(column, columns)}`,
      path,
      text,
      part,
    );
    return false;
  }

  #checkStepRef(
    target: string,
    index: number,
    site: FieldSite,
    text: string,
    part: Extract<TemplatePart, { kind: 'ref' }>,
  ): boolean {
    const say = (code: string, message: string) => {
      this.#error(code, `${site.label}: ${message}`, site.path, text, part);
      return false;
    };
    const position = this.#graph.position(target);
    if (position === undefined)
      return say(
        'template-unknown-step',
        `unknown step "${target}" in ${part.source}${didYouMean(target, this.#graph.ids())}`,
      );
    if (target === site.step)
      return say('template-cycle', `${part.source} is the step's own output: a step cannot use itself (a cycle)`);
    if (position > site.index) {
      const cycle = this.#graph.pathBetween(target, site.step);
      const suffix = cycle ? `; the steps form a cycle: ${[site.step, ...cycle].join(' → ')}` : '';
      return say(
        'template-later-step',
        `${part.source} refers to step "${target}", which comes later; a step can use only the outputs of earlier steps${suffix}`,
      );
    }
    const source = this.#compiled.get(target);
    if (!source) return true; // the target failed its own checks; they are reported there
    const media = OPERATION_SPECS[source.operation].output;
    if (media !== 'image') {
      return say(
        'template-output-kind',
        `${part.source} is ${media === 'audio' ? 'audio' : 'a video'} (step "${target}" is a ${source.operation} step); ${site.field} needs an image`,
      );
    }
    if (index === 0) return true;
    if (!OPERATION_SPECS[source.operation].multipleOutputs) {
      return say(
        'template-output-index',
        `${part.source}: step "${target}" (${source.operation}) makes one output; use steps.${target}.output`,
      );
    }
    const count = source.fields.get('num_images')?.value;
    if (count?.kind === 'template') {
      this.#outputIndexChecks.push({ consumer: site.step, field: site.field, target, index });
      return true;
    }
    const images = count?.kind === 'static' && typeof count.value === 'number' ? count.value : 1;
    if (index >= images) {
      const range = images === 1 ? `steps.${target}.output` : `outputs[0] to outputs[${images - 1}]`;
      return say(
        'template-output-index',
        `${part.source} is past the ${images} image${images === 1 ? '' : 's'} of step "${target}" (num_images: ${images}); use ${range}`,
      );
    }
    return true;
  }

  #error(code: string, message: string, path: DataPath, text: string, part: { start: number }): void {
    this.#context.collector.error(code, message, this.#position(path, text, part.start));
  }

  /** Position of the template that starts at `start` in a field's value. */
  #position(path: DataPath, text: string, start: number): FilePosition {
    let occurrence = 0;
    for (let at = text.indexOf('${{'); at !== -1 && at < start; at = text.indexOf('${{', at + 1)) occurrence++;
    return templatePosition(this.#context.locator, this.#context.sourceText, path, occurrence);
  }
}

interface FieldSite {
  readonly step: string;
  readonly index: number;
  readonly operation: Operation;
  readonly field: string;
  readonly spec: FieldSpec;
  readonly path: DataPath;
  /** How messages name the field. */
  readonly label: string;
}
