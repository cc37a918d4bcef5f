/** Download checks: magic bytes over names and types, a size cap, transient retries, no credentials. */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/api/connection.js';
import { UsageError } from '../../src/errors.js';
import { KEY, mockService, testClient } from '../helpers/api-harness.js';
import { PNG_1X1, tempDir } from '../helpers/temp-pipeline.js';

beforeAll(() => mockService.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mockService.resetHandlers());
afterAll(() => mockService.close());

const FILE = 'https://cdn.media.test/result';

describe('download', () => {
  it('sends no credentials to the file host and accepts a generic content type when the bytes are right', async () => {
    let authorization: string | null = 'unset';
    mockService.use(
      http.get(FILE, ({ request }) => {
        authorization = request.headers.get('authorization');
        return new HttpResponse(PNG_1X1, { headers: { 'content-type': 'application/octet-stream' } });
      }),
    );
    const result = await testClient().client.download(FILE, path.join(tempDir(), 'a.png'), 'image');
    expect(result).toMatchObject({ mediaType: 'image/png', bytes: PNG_1X1.length });
    expect(authorization).toBeNull();
  });

  it('refuses bytes that are not what was expected, and leaves nothing behind', async () => {
    mockService.use(
      http.get(
        FILE,
        () => new HttpResponse('<html>not found</html>', { headers: { 'content-type': 'application/octet-stream' } }),
      ),
    );
    const dir = tempDir();
    await expect(testClient().client.download(FILE, path.join(dir, 'a.png'), 'image')).rejects.toMatchObject({
      serviceCode: 'not_a_result',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops reading past the size cap', async () => {
    mockService.use(
      http.get(
        FILE,
        () =>
          new HttpResponse(Buffer.concat([PNG_1X1, Buffer.alloc(70 * 1024 * 1024)]), {
            headers: { 'content-type': 'audio/mpeg' },
          }),
      ),
    );
    const dir = tempDir();
    await expect(testClient().client.download(FILE, path.join(dir, 'a.mp3'), 'audio')).rejects.toMatchObject({
      serviceCode: 'too_large',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('retries a 503 and a broken connection, then writes the file', async () => {
    let calls = 0;
    mockService.use(
      http.get(FILE, () => {
        calls++;
        if (calls === 1) return new HttpResponse(null, { status: 503 });
        if (calls === 2) return HttpResponse.error();
        return new HttpResponse(PNG_1X1, { headers: { 'content-type': 'image/png' } });
      }),
    );
    const destination = path.join(tempDir(), 'deep', 'down', 'a.png');
    const { client, recorded } = testClient();
    await client.download(FILE, destination, 'image');
    expect(calls).toBe(3);
    expect(recorded.sleeps).toEqual([500, 1000]);
    expect(existsSync(destination)).toBe(true);
  });

  it.each([404, 410, 403])('treats %i as an expired result', async (status) => {
    mockService.use(http.get(FILE, () => new HttpResponse(null, { status })));
    await expect(testClient().client.download(FILE, path.join(tempDir(), 'a.png'), 'image')).rejects.toThrow(
      /is gone \(HTTP \d+\): results are kept 24 hours/,
    );
  });
});

describe('the connection', () => {
  it('comes from the environment, the pipeline base URL as a fallback', () => {
    expect(
      resolveConnection({ ASSETLINE_BASE_URL: 'https://a.test', ASSETLINE_API_KEY: KEY }, 'https://b.test').baseUrl,
    ).toBe('https://a.test');
    expect(resolveConnection({ ASSETLINE_API_KEY: KEY }, 'https://b.test').baseUrl).toBe('https://b.test');
  });

  it('says what to set when something is missing, never falling back to the sandbox', () => {
    expect(() => resolveConnection({}, undefined)).toThrow(UsageError);
    expect(() => resolveConnection({}, undefined)).toThrow(
      'set ASSETLINE_BASE_URL (or api.base_url in the pipeline) and ASSETLINE_API_KEY to reach the service, or use --sandbox to run against the local emulator',
    );
    expect(() => resolveConnection({ ASSETLINE_BASE_URL: 'ftp://x', ASSETLINE_API_KEY: KEY }, undefined)).toThrow(
      /must be an http\(s\) URL/,
    );
  });
});
