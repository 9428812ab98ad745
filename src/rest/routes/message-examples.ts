/** One example body per type of `POST /ai/conversations/{conversation_id}/messages` (CONTRACT §12.4), for /openapi.json and /docs. */
export const MESSAGE_EXAMPLES = {
  text: { summary: 'Text', value: { role: 'assistant', content: 'Your order is on its way 🛵' } },
  location: {
    summary: 'Location (our address)',
    value: {
      role: 'assistant',
      type: 'location',
      payload: { latitude: 40.4168, longitude: -3.7038, name: 'Pizzería Sol', address: 'Puerta del Sol 1, Madrid' },
    },
  },
  buttons: {
    summary: 'Interactive: reply buttons',
    value: {
      role: 'assistant',
      type: 'interactive',
      payload: {
        type: 'button',
        header: { type: 'text', text: 'Order #1042' },
        body: { text: 'One pepperoni pizza, 12.50 €. Confirm?' },
        footer: { text: 'Pizzería Sol' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'confirm', title: 'Confirm' } },
            { type: 'reply', reply: { id: 'change', title: 'Change' } },
            { type: 'reply', reply: { id: 'cancel', title: 'Cancel' } },
          ],
        },
      },
    },
  },
  list: {
    summary: 'Interactive: list',
    value: {
      role: 'assistant',
      type: 'interactive',
      payload: {
        type: 'list',
        body: { text: "Today's pizzas" },
        action: {
          button: 'See the menu',
          sections: [
            {
              title: 'Pizzas',
              rows: [
                { id: 'margherita', title: 'Margherita', description: '9.50 €' },
                { id: 'pepperoni', title: 'Pepperoni', description: '12.50 €' },
              ],
            },
          ],
        },
      },
    },
  },
  cta_url: {
    summary: 'Interactive: a button that opens a URL',
    value: {
      role: 'assistant',
      type: 'interactive',
      payload: {
        type: 'cta_url',
        body: { text: 'Follow your order live' },
        action: { name: 'cta_url', parameters: { display_text: 'Track order', url: 'https://example.com/orders/1042' } },
      },
    },
  },
  location_request: {
    summary: "Interactive: ask for the customer's location",
    value: {
      role: 'assistant',
      type: 'interactive',
      payload: { type: 'location_request_message', body: { text: 'Where should we deliver?' }, action: { name: 'send_location' } },
    },
  },
  image: {
    summary: 'Image by our media_id (POST /ai/media)',
    value: { role: 'assistant', type: 'image', payload: { media_id: 'med_2hQp0cX4t1Vb9sK3LmN8yZaR', caption: 'Pepperoni' } },
  },
  document: {
    summary: 'Document by link',
    value: {
      role: 'assistant',
      type: 'document',
      payload: { link: 'https://example.com/menu.pdf', filename: 'menu.pdf', caption: 'Our menu' },
    },
  },
  audio: { summary: 'Audio', value: { role: 'assistant', type: 'audio', payload: { media_id: 'med_2hQp0cX4t1Vb9sK3LmN8yZaR' } } },
  video: {
    summary: 'Video',
    value: { role: 'assistant', type: 'video', payload: { link: 'https://example.com/oven.mp4', caption: 'Fresh from the oven' } },
  },
  sticker: { summary: 'Sticker', value: { role: 'assistant', type: 'sticker', payload: { media_id: 'med_2hQp0cX4t1Vb9sK3LmN8yZaR' } } },
  reaction: {
    summary: 'Reaction to a message',
    value: { role: 'assistant', type: 'reaction', payload: { message_id: 4211, emoji: '👍' } },
  },
  reply: {
    summary: 'Text answering a message (context)',
    value: { role: 'assistant', content: 'Yes, we deliver there', reply_to_id: 4211 },
  },
};
