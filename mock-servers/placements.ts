/**
 * University placements server: drives, eligibility, registration, resumes, offers,
 * internships and placement-cell analytics. Run: node dist/mock-servers/placements.js
 */
import { officeTools } from './placements/office.js';
import { studentTools } from './placements/student.js';
import { serve } from './shared/tool.js';

serve('placements', [...studentTools, ...officeTools]);
