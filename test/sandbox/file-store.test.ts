import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/sandbox/file-store.js';

describe('file store', () => {
  it('renders a file once, however often it is read', async () => {
    const store = new FileStore(1000);
    let renders = 0;
    const path = store.add({
      id: 'a',
      mediaType: 'image/png',
      createdAt: 0,
      render: async () => (renders++, new Uint8Array([1])),
    });
    const found = store.lookup(path, 10);
    expect(found?.expired).toBe(false);
    await Promise.all([store.bytes(found!.file), store.bytes(found!.file)]);
    expect(renders).toBe(1);
  });

  it('lets expired files go of their bytes but still knows them as expired (410, not 404)', async () => {
    const store = new FileStore(1000);
    const old = store.add({ id: 'old', mediaType: 'audio/mpeg', createdAt: 0, render: async () => new Uint8Array(10) });
    await store.bytes(store.lookup(old, 0)!.file);
    for (let i = 0; i < 1000; i++)
      store.add({ id: `n${i}`, mediaType: 'image/png', createdAt: 5000, render: async () => new Uint8Array(1) });
    const found = store.lookup(old, 5000);
    expect(found?.expired).toBe(true);
    expect(found?.file.bytes).toBeUndefined();
    expect(found?.file.render).toBeUndefined();
    expect(store.lookup('/files/nothing.png', 0)).toBeUndefined();
    expect(store.lookup(old.replace('.mp3', '.png'), 0)).toBeUndefined();
  });
});
