import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp-pipeline.js';

afterAll(removeTempDirs);
