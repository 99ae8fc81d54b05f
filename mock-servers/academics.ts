/**
 * University academics server: courses, enrolment, grades, CGPA, internal assessment,
 * timetable, syllabus, advising and academic analytics. Run: node dist/mock-servers/academics.js
 */
import { analyticsTools } from './academics/analytics.js';
import { staffTools } from './academics/staff.js';
import { backlogTool, studentTools } from './academics/student.js';
import { serve } from './shared/tool.js';

serve('academics', [...studentTools, backlogTool, ...staffTools, ...analyticsTools]);
