/**
 * The tools every example curates: a small help-desk app's 20 functions, as plain specs
 * (name, description, JSON Schema of the arguments). Each example wraps them in its
 * framework's tool type.
 */
export interface ExampleTool {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, { type: string; description?: string }>; required?: string[] };
}

const obj = (properties: Record<string, string>, required: string[] = Object.keys(properties)): ExampleTool['parameters'] => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(properties).map(([k, description]) => [k, { type: 'string', description }])),
  required,
});

export const EXAMPLE_TOOLS: ExampleTool[] = [
  { name: 'get_weather', description: 'Current weather and temperature for a city.', parameters: obj({ city: 'City name' }) },
  { name: 'get_forecast', description: 'Weather forecast for the next seven days in a city.', parameters: obj({ city: 'City name' }) },
  { name: 'send_email', description: 'Send an email message to a recipient.', parameters: obj({ to: 'Recipient address', subject: 'Subject line', body: 'Message text' }) },
  { name: 'search_email', description: 'Search the mailbox for messages matching words or a sender.', parameters: obj({ query: 'Words or sender' }) },
  { name: 'create_calendar_event', description: 'Schedule a meeting or event in the calendar.', parameters: obj({ title: 'Event title', start: 'Start time, ISO 8601' }) },
  { name: 'list_calendar_events', description: 'List the calendar events of a day.', parameters: obj({ date: 'Day, YYYY-MM-DD' }) },
  { name: 'cancel_calendar_event', description: 'Cancel a scheduled meeting.', parameters: obj({ event_id: 'Event id' }) },
  { name: 'get_order_status', description: 'Where an order is: shipping status and tracking number.', parameters: obj({ order_id: 'Order id' }) },
  { name: 'refund_order', description: 'Refund an order to the customer’s original payment method.', parameters: obj({ order_id: 'Order id', reason: 'Why' }) },
  { name: 'list_invoices', description: 'List the customer’s invoices and what is still due.', parameters: obj({ customer_id: 'Customer id' }) },
  { name: 'pay_invoice', description: 'Pay an outstanding invoice by card.', parameters: obj({ invoice_id: 'Invoice id' }) },
  { name: 'create_ticket', description: 'Open a support ticket describing a problem.', parameters: obj({ title: 'Short summary', body: 'Details' }) },
  { name: 'close_ticket', description: 'Close a resolved support ticket.', parameters: obj({ ticket_id: 'Ticket id' }) },
  { name: 'search_knowledge_base', description: 'Search help articles and how-to guides.', parameters: obj({ query: 'Question' }) },
  { name: 'read_file', description: 'Read the contents of a file from the shared drive.', parameters: obj({ path: 'File path' }) },
  { name: 'write_file', description: 'Save text to a file on the shared drive.', parameters: obj({ path: 'File path', content: 'Text' }) },
  { name: 'translate_text', description: 'Translate text into another language.', parameters: obj({ text: 'Text', target_language: 'Language code' }) },
  { name: 'convert_currency', description: 'Convert an amount between currencies at today’s exchange rate.', parameters: obj({ amount: 'Amount', from: 'Currency code', to: 'Currency code' }) },
  { name: 'get_stock_price', description: 'Latest share price of a listed company.', parameters: obj({ symbol: 'Ticker symbol' }) },
  { name: 'reset_password', description: 'Send a password reset link to a user’s email.', parameters: obj({ user_id: 'User id' }) },
];

/** The messages the examples run: each with the tool a good curation must send. */
export const EXAMPLE_MESSAGES: { text: string; needs: string }[] = [
  { text: 'Will it rain in Lisbon tomorrow?', needs: 'get_forecast' },
  { text: 'I want my money back for order 1234, it arrived broken', needs: 'refund_order' },
  { text: 'Put a meeting with Sam on my calendar for Friday at 10', needs: 'create_calendar_event' },
  { text: 'I forgot my password and cannot log in', needs: 'reset_password' },
];

/** How many tools the examples let through per message (the curation's top_k). */
export const EXAMPLE_TOP_K = 5;

/** Where the examples cache document embeddings (so a second run embeds nothing). */
export const exampleCachePath = (): string => `${process.env.TOOL_CURATOR_EXAMPLE_CACHE ?? '.tool-curator/examples.db'}`;
