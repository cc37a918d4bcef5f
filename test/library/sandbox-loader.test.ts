/** The sandbox's packages are optional: a missing one is named, with how to install it. */
import { describe, expect, it } from 'vitest';
import { AssetlineError } from '../../src/errors.js';
import { checkSandboxPackages, SANDBOX_PACKAGES, SandboxUnavailableError } from '../../src/sandbox-loader.js';

function notFound(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/dist/sandbox-loader.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

describe('checkSandboxPackages', () => {
  it('passes when every package loads', async () => {
    const seen: string[] = [];
    await checkSandboxPackages(
      async (name) => seen.push(`import ${name}`),
      (name) => (seen.push(`resolve ${name}`), `file:///x/${name}`),
    );
    expect(seen).toEqual(['import sharp', 'resolve h264-mp4-encoder', 'resolve @breezystack/lamejs']);
    expect(SANDBOX_PACKAGES).toHaveLength(3);
  });

  it.each(SANDBOX_PACKAGES)('names %s when it is missing, exit 2', async (missing) => {
    const error = await checkSandboxPackages(
      async (name) => {
        if (name === missing) throw notFound(name);
      },
      (name) => {
        if (name === missing) throw notFound(name);
        return `file:///x/${name}`;
      },
    ).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect(error).toBeInstanceOf(AssetlineError);
    expect(error).toMatchObject({ code: 'sandbox-unavailable', exitCode: 2, packageName: missing });
    expect((error as Error).message).toContain(`npm install ${missing}`);
    expect((error as Error).message).not.toContain('\n');
  });

  it('names sharp when its native part does not load', async () => {
    const error = checkSandboxPackages(async () => {
      throw new Error('Could not load the "sharp" module using the linux-x64 runtime\nPossible solutions: ...');
    });
    await expect(error).rejects.toMatchObject({
      packageName: 'sharp',
      message: expect.stringContaining('Could not load the "sharp" module using the linux-x64 runtime)'),
    });
  });
});
