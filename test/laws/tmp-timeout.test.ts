import { it } from 'vitest';
import './runs';
it('slow', async () => { await new Promise((r) => setTimeout(r, 61_000)); });
