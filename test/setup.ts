import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp-dir.js';

afterAll(removeTempDirs);
