/**
 * University examinations server: schedules, eligibility, hall tickets, results,
 * supplementary exams, revaluation and the examinations office's tools.
 * Run: node dist/mock-servers/examinations.js
 */
import { officeTools } from './examinations/office.js';
import { studentTools } from './examinations/student.js';
import { serve } from './shared/tool.js';

serve('examinations', [...studentTools, ...officeTools]);
