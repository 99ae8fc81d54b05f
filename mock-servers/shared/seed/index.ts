/**
 * Seeds an empty fixture database in one pass. Order matters: people first (everything
 * references them), fixture rows before generated ones within each step (so their ids
 * are the small, documented ones in fixture.ts).
 */
import type { Db } from '../db.js';
import { seedAcademics } from './academic.js';
import { seedAdministration, seedLibrary, seedPlacements } from './campus.js';
import { SeedContext } from './context.js';
import { seedPeople } from './people.js';
import { seedFinance, seedHostel } from './services.js';

export function seed(db: Db): void {
  const ctx = new SeedContext(db);
  seedPeople(ctx);
  seedAcademics(ctx);
  seedFinance(ctx);
  seedHostel(ctx);
  seedLibrary(ctx);
  seedPlacements(ctx);
  seedAdministration(ctx);
}
