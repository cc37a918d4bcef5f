/**
 * Loads the sandbox module, after checking the packages only it needs. They are optional
 * dependencies: a team that runs against the service only may install with `--omit=optional`
 * and skip them (about 27 MB, most of the installed size). Asking for the sandbox without them is
 * then a clear error that names the package, instead of a module-resolution stack trace.
 */
import { AssetlineError, EXIT } from './errors.js';

/** The sandbox's own dependencies: images (sharp and libvips), video, and speech. */
export const SANDBOX_PACKAGES = ['sharp', 'h264-mp4-encoder', '@breezystack/lamejs'] as const;

export class SandboxUnavailableError extends AssetlineError {
  readonly packageName: string;

  constructor(packageName: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    super(
      'sandbox-unavailable',
      `the sandbox needs the package "${packageName}", which cannot be loaded (${reason}). It is an optional dependency: install it with "npm install ${packageName}", or install assetline without --omit=optional`,
      EXIT.usage,
    );
    this.name = 'SandboxUnavailableError';
    this.packageName = packageName;
  }
}

export type ModuleImporter = (specifier: string) => Promise<unknown>;

/**
 * Every sandbox package loads, or the first that does not is named. sharp is loaded for real (its
 * native part can be missing while the package is there); the others, which are big and loaded
 * late by the sandbox itself, only have to resolve.
 */
export async function checkSandboxPackages(
  importer: ModuleImporter = (specifier) => import(specifier),
  resolve: (specifier: string) => string = (specifier) => import.meta.resolve(specifier),
): Promise<void> {
  for (const name of SANDBOX_PACKAGES) {
    try {
      if (name === 'sharp') await importer(name);
      else resolve(name);
    } catch (error) {
      throw new SandboxUnavailableError(name, error);
    }
  }
}

export async function loadSandbox(): Promise<typeof import('./sandbox/sandbox.js')> {
  await checkSandboxPackages();
  return import('./sandbox/sandbox.js');
}
