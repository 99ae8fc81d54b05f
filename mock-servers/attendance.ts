/**
 * University attendance server: student summaries, class marking and corrections,
 * shortage lists and condonation. Run: node dist/mock-servers/attendance.js
 */
import { facultyTools } from './attendance/faculty.js';
import { studentTools } from './attendance/student.js';
import { serve } from './shared/tool.js';

serve('attendance', [...studentTools, ...facultyTools]);
