/**
 * University administration server: grievances, announcements, events, transport, IT
 * tickets, executive dashboards and analytics, user and role administration.
 * Run: node dist/mock-servers/administration.js
 */
import { accountTools } from './administration/accounts.js';
import { analyticsTools } from './administration/analytics.js';
import { campusTools } from './administration/campus.js';
import { serve } from './shared/tool.js';

serve('administration', [...campusTools, ...analyticsTools, ...accountTools]);
