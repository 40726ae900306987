/**
 * Number types shared by every schema of locfix (the run config, localizer and stage options), declared once, with
 * messages that read after "<where> <key> …": "topFiles must be a positive integer, got 0".
 */
import { z } from 'zod';

export const positiveInt = () =>
  z.number({ message: 'must be a positive integer' }).int({ message: 'must be a positive integer' }).positive({ message: 'must be a positive integer' });

export const nonNegativeInt = (what = 'must be an integer >= 0') => z.number({ message: what }).int({ message: what }).nonnegative({ message: what });
