/* OrderGraph console: the words of issue 68 (what made a restaurant stop trusting the console): handoffs in the
 * thread, agents switched off elsewhere, the phone's history, delivery reasons in words, money with its currency.
 * Added to i18n.js's tables (loaded after orders-words.js). */
(function () {
  'use strict';
  window.OrderGraphI18n.add({
    en: {
      took_by_you: 'You took the conversation from the AI',
      took_by: '{who} took the conversation from the AI',
      took_person: 'A person took the conversation from the AI',
      assigned_to_you: 'Assigned to you',
      assigned_to: 'Assigned to {who}',
      unassigned_now: 'No one is assigned now',
      back_to_ai: 'Handed back to the AI',
      handled_by_you: 'Handled by you',
      agent_off_no_reply: 'The agent {name} is disabled: a reply would not reach the customer.',
      err_agent_off: 'Not sent: the agent {name} is disabled.',
      taking_over: 'Taking the conversation from the AI…',
    },
    es: {
      took_by_you: 'Has tomado la conversación de la IA',
      took_by: '{who} ha tomado la conversación de la IA',
      took_person: 'Una persona ha tomado la conversación de la IA',
      assigned_to_you: 'Asignada a ti',
      assigned_to: 'Asignada a {who}',
      unassigned_now: 'Ya no está asignada a nadie',
      back_to_ai: 'Devuelta a la IA',
      handled_by_you: 'La atiendes tú',
      agent_off_no_reply: 'El agente {name} está desactivado: una respuesta no llegaría al cliente.',
      err_agent_off: 'No enviado: el agente {name} está desactivado.',
      taking_over: 'Tomando la conversación de la IA…',
    },
    fr: {
      took_by_you: "Vous avez pris la conversation à l'IA",
      took_by: "{who} a pris la conversation à l'IA",
      took_person: "Une personne a pris la conversation à l'IA",
      assigned_to_you: 'Attribuée à vous',
      assigned_to: 'Attribuée à {who}',
      unassigned_now: "N'est plus attribuée à personne",
      back_to_ai: "Rendue à l'IA",
      handled_by_you: 'Vous vous en occupez',
      agent_off_no_reply: "L'agent {name} est désactivé : une réponse n'atteindrait pas le client.",
      err_agent_off: "Non envoyé : l'agent {name} est désactivé.",
      taking_over: "Vous prenez la conversation à l'IA…",
    },
    ar: {
      took_by_you: 'توليت المحادثة بدلًا من الذكاء الاصطناعي',
      took_by: 'تولى {who} المحادثة بدلًا من الذكاء الاصطناعي',
      took_person: 'تولى شخص المحادثة بدلًا من الذكاء الاصطناعي',
      assigned_to_you: 'أُسندت إليك',
      assigned_to: 'أُسندت إلى {who}',
      unassigned_now: 'لم تعد مسندة إلى أحد',
      back_to_ai: 'أُعيدت إلى الذكاء الاصطناعي',
      handled_by_you: 'تتولاها أنت',
      agent_off_no_reply: 'الوكيل {name} معطّل: لن يصل الرد إلى العميل.',
      err_agent_off: 'لم يُرسل: الوكيل {name} معطّل.',
      taking_over: 'جارٍ تولي المحادثة…',
    },
  });
})();
