import type { Message } from '../errors/app-error.js';

/*
 * Every message of the API, in its four languages. Two tables per language:
 * - the catalogue: a message per error code (ERROR_*) and per other key. A new error code: add it to
 *   ERROR_STATUS (errors/codes.ts) and a line with the code as key to en, es, fr and ar below
 *   (test/rest/docs.test.ts fails on a missing translation).
 * - the rules of ERROR_VALIDATION: what the field must be, always starting with the field's name
 *   ("The field {field} must ..."), with the rule's parameters ({values}, {min}, {max}, ...). A new rule:
 *   add it to en_rules, es_rules, fr_rules and ar_rules (the compiler refuses a missing one), then throw
 *   `validationError([{ field, rule: 'my_rule', params }])` (errors/codes.ts); an Ajv keyword reaches a
 *   rule in rest/ajv-rules.ts, a route's pattern through NAMED_PATTERNS (rest/json-schema.ts). A list
 *   parameter (string[]) is joined with the language's separator. Add a case for the new rule to
 *   test/rest/validation-messages.test.ts (it fails while a rule has none).
 */

export const LANGS = ['en', 'es', 'fr', 'ar'] as const;
export type Lang = (typeof LANGS)[number];

type Catalogue = Record<string, string>;

const en_rules = {
  required: 'The field {field} is required.',
  enum: 'The field {field} must be one of: {values}.',
  items_enum: 'The field {field} must contain only: {values}.',
  key_enum: 'The field {field} is not allowed; the keys allowed are: {values}.',
  not_empty: 'The field {field} must not be empty.',
  items_not_blank: 'The field {field} must not contain blank items.',
  max_length: 'The field {field} must be at most {max} characters.',
  length: 'The field {field} must be {min} to {max} characters.',
  range: 'The field {field} must be between {min} and {max}.',
  max_items: 'The field {field} must have at most {max} items.',
  max_keys: 'The field {field} must have at most {max} keys.',
  business: 'The field {field} must be the id of a business you can use.',
  integer: 'The field {field} must be a whole number.',
  number: 'The field {field} must be a number.',
  string: 'The field {field} must be a string.',
  boolean: 'The field {field} must be true or false.',
  object: 'The field {field} must be a JSON object.',
  array: 'The field {field} must be an array.',
  pattern: 'The field {field} must match the pattern {pattern}.',
  digits: 'The field {field} must contain only digits.',
  digits_count: 'The field {field} must be {min} to {max} digits.',
  uuid: 'The field {field} must be a UUID.',
  external_id: 'The field {field} must contain only letters, digits, - and _.',
  date: 'The field {field} must be a date (YYYY-MM-DD).',
  month: 'The field {field} must be a month (YYYY-MM) of the years 1000 to 9998.',
  date_order: 'The field {field} must not be before {other}.',
  max_days: 'The field {field} must be at most {max} days after {other}.',
  max_years: 'The field {field} must be less than {max} years after {other}.',
  email: 'The field {field} must be an email address.',
  phone: 'The field {field} must contain only digits, optionally after a +.',
  url: 'The field {field} must be an http or https URL.',
  timezone: 'The field {field} must be an IANA time zone name, such as Europe/Madrid.',
  printable: 'The field {field} must be {min} to {max} printable ASCII characters, without spaces.',
  max_depth: 'The field {field} must be nested at most {max} levels deep.',
  no_nul: 'The field {field} must not contain the NUL character (U+0000).',
  filter:
    'The field {field} must be a filter: {"attribute": value}, or conditions [{"attribute", "value"}] under "conditions" with a "conector" AND or OR.',
};

/** A rule of ERROR_VALIDATION: the key of its message. */
export type Rule = keyof typeof en_rules;
type Rules = Record<Rule, string>;
export const RULE_NAMES = Object.keys(en_rules) as Rule[];

const es_rules: Rules = {
  required: 'El campo {field} es obligatorio.',
  enum: 'El campo {field} debe ser uno de: {values}.',
  items_enum: 'El campo {field} solo puede contener: {values}.',
  key_enum: 'El campo {field} no está permitido; las claves permitidas son: {values}.',
  not_empty: 'El campo {field} no puede estar vacío.',
  items_not_blank: 'El campo {field} no puede contener elementos en blanco.',
  max_length: 'El campo {field} debe tener como máximo {max} caracteres.',
  length: 'El campo {field} debe tener de {min} a {max} caracteres.',
  range: 'El campo {field} debe estar entre {min} y {max}.',
  max_items: 'El campo {field} debe tener como máximo {max} elementos.',
  max_keys: 'El campo {field} debe tener como máximo {max} claves.',
  business: 'El campo {field} debe ser el id de un negocio que usted pueda usar.',
  integer: 'El campo {field} debe ser un número entero.',
  number: 'El campo {field} debe ser un número.',
  string: 'El campo {field} debe ser una cadena de texto.',
  boolean: 'El campo {field} debe ser true o false.',
  object: 'El campo {field} debe ser un objeto JSON.',
  array: 'El campo {field} debe ser una lista.',
  pattern: 'El campo {field} debe seguir el patrón {pattern}.',
  digits: 'El campo {field} solo puede contener dígitos.',
  digits_count: 'El campo {field} debe tener de {min} a {max} dígitos.',
  uuid: 'El campo {field} debe ser un UUID.',
  external_id: 'El campo {field} solo puede contener letras, dígitos, - y _.',
  date: 'El campo {field} debe ser una fecha (AAAA-MM-DD).',
  month: 'El campo {field} debe ser un mes (AAAA-MM) de los años 1000 a 9998.',
  date_order: 'El campo {field} no puede ser anterior a {other}.',
  max_days: 'El campo {field} debe ser como máximo {max} días después de {other}.',
  max_years: 'El campo {field} debe ser menos de {max} años después de {other}.',
  email: 'El campo {field} debe ser una dirección de correo electrónico.',
  phone: 'El campo {field} solo puede contener dígitos, opcionalmente tras un +.',
  url: 'El campo {field} debe ser una URL http o https.',
  timezone: 'El campo {field} debe ser una zona horaria IANA, como Europe/Madrid.',
  printable: 'El campo {field} debe tener de {min} a {max} caracteres ASCII imprimibles, sin espacios.',
  max_depth: 'El campo {field} puede anidarse como máximo {max} niveles.',
  no_nul: 'El campo {field} no debe contener el carácter NUL (U+0000).',
  filter:
    'El campo {field} debe ser un filtro: {"atributo": valor}, o condiciones [{"attribute", "value"}] en "conditions" con un "conector" AND u OR.',
};

const fr_rules: Rules = {
  required: 'Le champ {field} est obligatoire.',
  enum: "Le champ {field} doit être l'une des valeurs : {values}.",
  items_enum: 'Le champ {field} ne peut contenir que : {values}.',
  key_enum: "Le champ {field} n'est pas permis ; les clés permises sont : {values}.",
  not_empty: 'Le champ {field} ne doit pas être vide.',
  items_not_blank: "Le champ {field} ne doit pas contenir d'éléments vides.",
  max_length: 'Le champ {field} doit compter au plus {max} caractères.',
  length: 'Le champ {field} doit compter de {min} à {max} caractères.',
  range: 'Le champ {field} doit être compris entre {min} et {max}.',
  max_items: 'Le champ {field} doit contenir au plus {max} éléments.',
  max_keys: 'Le champ {field} doit contenir au plus {max} clés.',
  business: "Le champ {field} doit être l'id d'un établissement que vous pouvez utiliser.",
  integer: 'Le champ {field} doit être un nombre entier.',
  number: 'Le champ {field} doit être un nombre.',
  string: 'Le champ {field} doit être une chaîne de caractères.',
  boolean: 'Le champ {field} doit valoir true ou false.',
  object: 'Le champ {field} doit être un objet JSON.',
  array: 'Le champ {field} doit être une liste.',
  pattern: 'Le champ {field} doit suivre le motif {pattern}.',
  digits: 'Le champ {field} ne peut contenir que des chiffres.',
  digits_count: 'Le champ {field} doit compter de {min} à {max} chiffres.',
  uuid: 'Le champ {field} doit être un UUID.',
  external_id: 'Le champ {field} ne peut contenir que des lettres, des chiffres, - et _.',
  date: 'Le champ {field} doit être une date (AAAA-MM-JJ).',
  month: 'Le champ {field} doit être un mois (AAAA-MM) des années 1000 à 9998.',
  date_order: 'Le champ {field} ne doit pas précéder {other}.',
  max_days: 'Le champ {field} doit être au plus {max} jours après {other}.',
  max_years: 'Le champ {field} doit être moins de {max} ans après {other}.',
  email: 'Le champ {field} doit être une adresse e-mail.',
  phone: 'Le champ {field} ne peut contenir que des chiffres, éventuellement après un +.',
  url: 'Le champ {field} doit être une URL http ou https.',
  timezone: 'Le champ {field} doit être un fuseau horaire IANA, comme Europe/Madrid.',
  printable: 'Le champ {field} doit compter de {min} à {max} caractères ASCII imprimables, sans espace.',
  max_depth: 'Le champ {field} peut être imbriqué sur au plus {max} niveaux.',
  no_nul: 'Le champ {field} ne doit pas contenir le caractère NUL (U+0000).',
  filter:
    'Le champ {field} doit être un filtre : {"attribut": valeur}, ou des conditions [{"attribute", "value"}] sous "conditions" avec un "conector" AND ou OR.',
};

const ar_rules: Rules = {
  required: 'الحقل {field} مطلوب.',
  enum: 'الحقل {field} يجب أن يكون إحدى القيم: {values}.',
  items_enum: 'الحقل {field} لا يقبل إلا: {values}.',
  key_enum: 'الحقل {field} غير مسموح به؛ المفاتيح المسموح بها: {values}.',
  not_empty: 'الحقل {field} يجب ألا يكون فارغًا.',
  items_not_blank: 'الحقل {field} يجب ألا يحتوي على عناصر فارغة.',
  max_length: 'الحقل {field} يجب ألا يتجاوز {max} حرفًا.',
  length: 'الحقل {field} يجب أن يحتوي على {min} إلى {max} حرفًا.',
  range: 'الحقل {field} يجب أن يكون بين {min} و{max}.',
  max_items: 'الحقل {field} يجب ألا يتجاوز {max} عنصرًا.',
  max_keys: 'الحقل {field} يجب ألا يتجاوز {max} مفتاحًا.',
  business: 'الحقل {field} يجب أن يكون معرّف نشاط تجاري يمكنك استخدامه.',
  integer: 'الحقل {field} يجب أن يكون عددًا صحيحًا.',
  number: 'الحقل {field} يجب أن يكون رقمًا.',
  string: 'الحقل {field} يجب أن يكون نصًا.',
  boolean: 'الحقل {field} يجب أن يكون true أو false.',
  object: 'الحقل {field} يجب أن يكون كائن JSON.',
  array: 'الحقل {field} يجب أن يكون قائمة.',
  pattern: 'الحقل {field} يجب أن يطابق النمط {pattern}.',
  digits: 'الحقل {field} يجب أن يحتوي على أرقام فقط.',
  digits_count: 'الحقل {field} يجب أن يحتوي على {min} إلى {max} أرقام.',
  uuid: 'الحقل {field} يجب أن يكون UUID.',
  external_id: 'الحقل {field} يجب أن يحتوي على حروف وأرقام و- و_ فقط.',
  date: 'الحقل {field} يجب أن يكون تاريخًا (YYYY-MM-DD).',
  month: 'الحقل {field} يجب أن يكون شهرًا (YYYY-MM) من السنوات 1000 إلى 9998.',
  date_order: 'الحقل {field} يجب ألا يسبق {other}.',
  max_days: 'الحقل {field} يجب ألا يتجاوز {max} يومًا بعد {other}.',
  max_years: 'الحقل {field} يجب أن يكون أقل من {max} سنوات بعد {other}.',
  email: 'الحقل {field} يجب أن يكون عنوان بريد إلكتروني.',
  phone: 'الحقل {field} يجب أن يحتوي على أرقام فقط، وقد تسبقها علامة +.',
  url: 'الحقل {field} يجب أن يكون عنوان URL من نوع http أو https.',
  timezone: 'الحقل {field} يجب أن يكون اسم منطقة زمنية IANA، مثل Europe/Madrid.',
  printable: 'الحقل {field} يجب أن يحتوي على {min} إلى {max} من أحرف ASCII القابلة للطباعة، دون مسافات.',
  max_depth: 'الحقل {field} يجب ألا يتجاوز تداخله {max} مستوى.',
  no_nul: 'الحقل {field} يجب ألا يحتوي على المحرف NUL (U+0000).',
  filter:
    'الحقل {field} يجب أن يكون مرشحًا: {"attribute": value}، أو شروطًا [{"attribute", "value"}] ضمن "conditions" مع "conector" بقيمة AND أو OR.',
};

export const RULES: Readonly<Record<Lang, Rules>> = { en: en_rules, es: es_rules, fr: fr_rules, ar: ar_rules };
/** A rule's message key: `rule.<rule>`. */
export const ruleKey = (rule: Rule) => `rule.${rule}`;
export const isRule = (name: string): name is Rule => Object.prototype.hasOwnProperty.call(en_rules, name);

/** How a list parameter is joined in each language. */
const LIST_SEPARATOR: Record<Lang, string> = { en: ', ', es: ', ', fr: ', ', ar: '، ' };

const en: Catalogue = {
  invalid_field: 'The field {field} is invalid.',
  value_refused: 'A value of the request is out of range or is not valid text.',
  required_field: 'The field {field} is required.',
  unknown_field: 'The field {field} is not known.',
  unknown_attribute: 'The attribute {field} cannot be used here.',
  unknown_operator: 'The operator {field} is not supported.',
  not_a_relation: 'The attribute {field} is not a relation.',
  ilike_not_supported: 'The attribute {field} cannot be compared with ilike.',
  malformed_json: 'The value of {field} is not valid JSON.',
  ERROR_VALIDATION: 'The request is invalid.',
  ERROR_RECAPTCHA: 'The reCAPTCHA verification failed.',
  ERROR_BUSINESS_NOT_FOUND: 'The business was not found.',
  ERROR_AI_AGENT_NOT_FOUND: 'The AI agent was not found.',
  ERROR_AI_TEMPLATE_NOT_FOUND: 'The template was not found.',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'The conversation was not found.',
  ERROR_AI_CONVERSATION_CLOSED: 'The conversation is closed.',
  ERROR_IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was already used with another request.',
  ERROR_IDEMPOTENCY_IN_PROGRESS: 'A request with this Idempotency-Key is still running. Try again shortly.',
  ERROR_AI_TEMPLATE_NOT_APPROVED: 'The template is not approved.',
  ERROR_WEBHOOK_SIGNATURE: 'The webhook signature is missing or does not match.',
  ERROR_WHATSAPP_WINDOW_CLOSED: "WhatsApp's 24-hour customer service window is closed for this contact: send a template instead.",
  ERROR_AI_CONVERSATION_HANDED_OFF: 'A person is handling this conversation: the AI may not answer until it is handed back.',
  ERROR_WEBHOOK_VERIFICATION_FAILED: 'The webhook verification failed.',
  ERROR_AI_PROVIDER_REJECTED: 'The provider rejected the request: {detail}',
  ERROR_AI_PROVIDER_UNAVAILABLE: 'The provider is not available. Try again later.',
  ERROR_AI_PROVIDER_NOT_CONFIGURED: 'The AI agent has no usable provider credentials.',
  body_parameters_count: 'The template body needs exactly {expected} parameters.',
  translations_updated: 'The translations were updated.',
  translations_copied: 'The translations were copied.',
  ERROR_AI_AGENT_DISABLED: 'The AI agent is disabled.',
  ERROR_UNAUTHORIZED: 'Authentication is required.',
  ERROR_INVALID_CREDENTIALS: 'The credentials are not valid.',
  ERROR_PROJECT_NOT_FOUND: 'The project does not exist.',
  ERROR_PROJECT_SUBSCRIPTION_INACTIVE: 'The project has no active subscription.',
  ERROR_AI_MODULE_DISABLED: 'The AI module is not available for this project.',
  ERROR_FORBIDDEN: 'This operation belongs to the operator of the service.',
  ERROR_NOT_FOUND: 'The requested resource does not exist.',
  ERROR_PAYLOAD_TOO_LARGE: 'The request body is too large.',
  ERROR_UNSUPPORTED_MEDIA_TYPE: 'The request body must be JSON.',
  ERROR_RATE_LIMIT: 'Too many requests. Try again in {retry_after} seconds.',
  ERROR_INTERNAL: 'An internal error occurred.',
  ERROR_PROJECT_LOOKUP_FAILED: 'The project could not be loaded.',
  ERROR_MAINTENANCE: 'The service is under maintenance.',
  ERROR_RATE_LIMIT_UNAVAILABLE: 'Usage limits cannot be checked right now. Try again shortly.',
  ERROR_SERVICE_UNAVAILABLE: 'The service is temporarily unavailable. Try again shortly.',
  ERROR_REQUEST_TIMEOUT: 'The request took too long to arrive.',
  ERROR_REQUEST_HEADERS_TOO_LARGE: 'The request line or headers are too large.',
  ERROR_WEBHOOK_NOT_FOUND: 'The webhook was not found.',
  webhooks_limit: 'A project can have at most {max} webhooks.',
  webhook_url_private: 'The field {field} points to a loopback, private or link-local address.',
  webhook_url_unresolvable: 'The host of the field {field} cannot be resolved.',
  duplicate_field: 'The value of {field} is already used by another agent of the project.',
};

const es: Catalogue = {
  invalid_field: 'El campo {field} no es válido.',
  value_refused: 'Un valor de la solicitud está fuera de rango o no es texto válido.',
  required_field: 'El campo {field} es obligatorio.',
  unknown_field: 'El campo {field} no existe.',
  unknown_attribute: 'El atributo {field} no se puede usar aquí.',
  unknown_operator: 'El operador {field} no está soportado.',
  not_a_relation: 'El atributo {field} no es una relación.',
  ilike_not_supported: 'El atributo {field} no se puede comparar con ilike.',
  malformed_json: 'El valor de {field} no es JSON válido.',
  ERROR_VALIDATION: 'La solicitud no es válida.',
  ERROR_RECAPTCHA: 'La verificación reCAPTCHA falló.',
  ERROR_BUSINESS_NOT_FOUND: 'No se encontró el negocio.',
  ERROR_AI_AGENT_NOT_FOUND: 'No se encontró el agente de IA.',
  ERROR_AI_TEMPLATE_NOT_FOUND: 'No se encontró la plantilla.',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'No se encontró la conversación.',
  ERROR_AI_CONVERSATION_CLOSED: 'La conversación está cerrada.',
  ERROR_IDEMPOTENCY_KEY_REUSED: 'Esta Idempotency-Key ya se usó con otra solicitud.',
  ERROR_IDEMPOTENCY_IN_PROGRESS: 'Una solicitud con esta Idempotency-Key sigue en curso. Inténtelo de nuevo en breve.',
  ERROR_AI_TEMPLATE_NOT_APPROVED: 'La plantilla no está aprobada.',
  ERROR_WEBHOOK_SIGNATURE: 'La firma del webhook falta o no coincide.',
  ERROR_WHATSAPP_WINDOW_CLOSED: 'La ventana de atención de 24 horas de WhatsApp está cerrada para este contacto: envíe una plantilla.',
  ERROR_AI_CONVERSATION_HANDED_OFF: 'Una persona atiende esta conversación: la IA no puede responder hasta que se la devuelvan.',
  ERROR_WEBHOOK_VERIFICATION_FAILED: 'La verificación del webhook falló.',
  ERROR_AI_PROVIDER_REJECTED: 'El proveedor rechazó la solicitud: {detail}',
  ERROR_AI_PROVIDER_UNAVAILABLE: 'El proveedor no está disponible. Inténtelo más tarde.',
  ERROR_AI_PROVIDER_NOT_CONFIGURED: 'El agente de IA no tiene credenciales de proveedor utilizables.',
  body_parameters_count: 'El cuerpo de la plantilla necesita exactamente {expected} parámetros.',
  translations_updated: 'Las traducciones se actualizaron.',
  translations_copied: 'Las traducciones se copiaron.',
  ERROR_AI_AGENT_DISABLED: 'El agente de IA está desactivado.',
  ERROR_UNAUTHORIZED: 'Se requiere autenticación.',
  ERROR_INVALID_CREDENTIALS: 'Las credenciales no son válidas.',
  ERROR_PROJECT_NOT_FOUND: 'El proyecto no existe.',
  ERROR_PROJECT_SUBSCRIPTION_INACTIVE: 'El proyecto no tiene una suscripción activa.',
  ERROR_AI_MODULE_DISABLED: 'El módulo de IA no está disponible para este proyecto.',
  ERROR_FORBIDDEN: 'Esta operación corresponde al operador del servicio.',
  ERROR_NOT_FOUND: 'El recurso solicitado no existe.',
  ERROR_PAYLOAD_TOO_LARGE: 'El cuerpo de la solicitud es demasiado grande.',
  ERROR_UNSUPPORTED_MEDIA_TYPE: 'El cuerpo de la solicitud debe ser JSON.',
  ERROR_RATE_LIMIT: 'Demasiadas solicitudes. Inténtelo de nuevo en {retry_after} segundos.',
  ERROR_INTERNAL: 'Ocurrió un error interno.',
  ERROR_PROJECT_LOOKUP_FAILED: 'No se pudo cargar el proyecto.',
  ERROR_MAINTENANCE: 'El servicio está en mantenimiento.',
  ERROR_RATE_LIMIT_UNAVAILABLE: 'No se pueden comprobar los límites de uso ahora. Inténtelo en breve.',
  ERROR_SERVICE_UNAVAILABLE: 'El servicio no está disponible temporalmente. Inténtelo en breve.',
  ERROR_REQUEST_TIMEOUT: 'La solicitud tardó demasiado en llegar.',
  ERROR_REQUEST_HEADERS_TOO_LARGE: 'La línea de solicitud o los encabezados son demasiado grandes.',
  ERROR_WEBHOOK_NOT_FOUND: 'No se encontró el webhook.',
  webhooks_limit: 'Un proyecto puede tener como máximo {max} webhooks.',
  webhook_url_private: 'El campo {field} apunta a una dirección local, privada o de enlace local.',
  webhook_url_unresolvable: 'No se puede resolver el host del campo {field}.',
  duplicate_field: 'El valor de {field} ya lo usa otro agente del proyecto.',
};

const fr: Catalogue = {
  invalid_field: "Le champ {field} n'est pas valide.",
  value_refused: "Une valeur de la requête est hors limites ou n'est pas un texte valide.",
  required_field: 'Le champ {field} est obligatoire.',
  unknown_field: "Le champ {field} n'existe pas.",
  unknown_attribute: "L'attribut {field} ne peut pas être utilisé ici.",
  unknown_operator: "L'opérateur {field} n'est pas pris en charge.",
  not_a_relation: "L'attribut {field} n'est pas une relation.",
  ilike_not_supported: "L'attribut {field} ne peut pas être comparé avec ilike.",
  malformed_json: "La valeur de {field} n'est pas un JSON valide.",
  ERROR_VALIDATION: "La requête n'est pas valide.",
  ERROR_RECAPTCHA: 'La vérification reCAPTCHA a échoué.',
  ERROR_BUSINESS_NOT_FOUND: "L'établissement est introuvable.",
  ERROR_AI_AGENT_NOT_FOUND: "L'agent IA est introuvable.",
  ERROR_AI_TEMPLATE_NOT_FOUND: 'Le modèle est introuvable.',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'La conversation est introuvable.',
  ERROR_AI_CONVERSATION_CLOSED: 'La conversation est fermée.',
  ERROR_IDEMPOTENCY_KEY_REUSED: 'Cette Idempotency-Key a déjà été utilisée avec une autre requête.',
  ERROR_IDEMPOTENCY_IN_PROGRESS: 'Une requête avec cette Idempotency-Key est encore en cours. Réessayez bientôt.',
  ERROR_AI_TEMPLATE_NOT_APPROVED: "Le modèle n'est pas approuvé.",
  ERROR_WEBHOOK_SIGNATURE: 'La signature du webhook est absente ou ne correspond pas.',
  ERROR_WHATSAPP_WINDOW_CLOSED: 'La fenêtre de service client de 24 heures de WhatsApp est fermée pour ce contact : envoyez un modèle.',
  ERROR_AI_CONVERSATION_HANDED_OFF:
    "Une personne traite cette conversation : l'IA ne peut pas répondre tant qu'elle ne lui est pas rendue.",
  ERROR_WEBHOOK_VERIFICATION_FAILED: 'La vérification du webhook a échoué.',
  ERROR_AI_PROVIDER_REJECTED: 'Le fournisseur a refusé la requête : {detail}',
  ERROR_AI_PROVIDER_UNAVAILABLE: "Le fournisseur n'est pas disponible. Réessayez plus tard.",
  ERROR_AI_PROVIDER_NOT_CONFIGURED: "L'agent IA n'a pas d'identifiants de fournisseur utilisables.",
  body_parameters_count: 'Le corps du modèle nécessite exactement {expected} paramètres.',
  translations_updated: 'Les traductions ont été mises à jour.',
  translations_copied: 'Les traductions ont été copiées.',
  ERROR_AI_AGENT_DISABLED: "L'agent IA est désactivé.",
  ERROR_UNAUTHORIZED: "L'authentification est requise.",
  ERROR_INVALID_CREDENTIALS: 'Les identifiants ne sont pas valides.',
  ERROR_PROJECT_NOT_FOUND: "Le projet n'existe pas.",
  ERROR_PROJECT_SUBSCRIPTION_INACTIVE: "Le projet n'a pas d'abonnement actif.",
  ERROR_AI_MODULE_DISABLED: "Le module IA n'est pas disponible pour ce projet.",
  ERROR_FORBIDDEN: "Cette opération est réservée à l'opérateur du service.",
  ERROR_NOT_FOUND: "La ressource demandée n'existe pas.",
  ERROR_PAYLOAD_TOO_LARGE: 'Le corps de la requête est trop volumineux.',
  ERROR_UNSUPPORTED_MEDIA_TYPE: 'Le corps de la requête doit être du JSON.',
  ERROR_RATE_LIMIT: 'Trop de requêtes. Réessayez dans {retry_after} secondes.',
  ERROR_INTERNAL: 'Une erreur interne est survenue.',
  ERROR_PROJECT_LOOKUP_FAILED: "Le projet n'a pas pu être chargé.",
  ERROR_MAINTENANCE: 'Le service est en maintenance.',
  ERROR_RATE_LIMIT_UNAVAILABLE: "Les limites d'utilisation ne peuvent pas être vérifiées. Réessayez bientôt.",
  ERROR_SERVICE_UNAVAILABLE: 'Le service est temporairement indisponible. Réessayez bientôt.',
  ERROR_REQUEST_TIMEOUT: 'La requête a mis trop de temps à arriver.',
  ERROR_REQUEST_HEADERS_TOO_LARGE: 'La ligne de requête ou les en-têtes sont trop volumineux.',
  ERROR_WEBHOOK_NOT_FOUND: 'Le webhook est introuvable.',
  webhooks_limit: 'Un projet peut avoir au plus {max} webhooks.',
  webhook_url_private: 'Le champ {field} désigne une adresse locale, privée ou de lien local.',
  webhook_url_unresolvable: "L'hôte du champ {field} ne peut pas être résolu.",
  duplicate_field: 'La valeur de {field} est déjà utilisée par un autre agent du projet.',
};

const ar: Catalogue = {
  invalid_field: 'الحقل {field} غير صالح.',
  value_refused: 'إحدى قيم الطلب خارج النطاق أو ليست نصًا صالحًا.',
  required_field: 'الحقل {field} مطلوب.',
  unknown_field: 'الحقل {field} غير معروف.',
  unknown_attribute: 'لا يمكن استخدام السمة {field} هنا.',
  unknown_operator: 'العامل {field} غير مدعوم.',
  not_a_relation: 'السمة {field} ليست علاقة.',
  ilike_not_supported: 'لا يمكن مقارنة السمة {field} باستخدام ilike.',
  malformed_json: 'قيمة {field} ليست JSON صالحًا.',
  ERROR_VALIDATION: 'الطلب غير صالح.',
  ERROR_RECAPTCHA: 'فشل التحقق من reCAPTCHA.',
  ERROR_BUSINESS_NOT_FOUND: 'لم يتم العثور على النشاط التجاري.',
  ERROR_AI_AGENT_NOT_FOUND: 'لم يتم العثور على وكيل الذكاء الاصطناعي.',
  ERROR_AI_TEMPLATE_NOT_FOUND: 'لم يتم العثور على القالب.',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'لم يتم العثور على المحادثة.',
  ERROR_AI_CONVERSATION_CLOSED: 'المحادثة مغلقة.',
  ERROR_IDEMPOTENCY_KEY_REUSED: 'تم استخدام مفتاح Idempotency-Key هذا مع طلب آخر.',
  ERROR_IDEMPOTENCY_IN_PROGRESS: 'لا يزال طلب بمفتاح Idempotency-Key هذا قيد التنفيذ. حاول بعد قليل.',
  ERROR_AI_TEMPLATE_NOT_APPROVED: 'القالب غير معتمد.',
  ERROR_WEBHOOK_SIGNATURE: 'توقيع الويب هوك مفقود أو غير مطابق.',
  ERROR_WHATSAPP_WINDOW_CLOSED: 'نافذة خدمة العملاء لمدة 24 ساعة في واتساب مغلقة لهذا الاتصال: أرسل قالبًا بدلاً من ذلك.',
  ERROR_AI_CONVERSATION_HANDED_OFF: 'يتولى شخص هذه المحادثة: لا يمكن للذكاء الاصطناعي الرد حتى تُعاد إليه.',
  ERROR_WEBHOOK_VERIFICATION_FAILED: 'فشل التحقق من الويب هوك.',
  ERROR_AI_PROVIDER_REJECTED: 'رفض المزود الطلب: {detail}',
  ERROR_AI_PROVIDER_UNAVAILABLE: 'المزود غير متاح. حاول لاحقًا.',
  ERROR_AI_PROVIDER_NOT_CONFIGURED: 'لا يملك وكيل الذكاء الاصطناعي بيانات اعتماد صالحة للمزود.',
  body_parameters_count: 'يحتاج نص القالب إلى {expected} من المعاملات بالضبط.',
  translations_updated: 'تم تحديث الترجمات.',
  translations_copied: 'تم نسخ الترجمات.',
  ERROR_AI_AGENT_DISABLED: 'وكيل الذكاء الاصطناعي معطل.',
  ERROR_UNAUTHORIZED: 'المصادقة مطلوبة.',
  ERROR_INVALID_CREDENTIALS: 'بيانات الاعتماد غير صحيحة.',
  ERROR_PROJECT_NOT_FOUND: 'المشروع غير موجود.',
  ERROR_PROJECT_SUBSCRIPTION_INACTIVE: 'لا يوجد اشتراك نشط للمشروع.',
  ERROR_AI_MODULE_DISABLED: 'وحدة الذكاء الاصطناعي غير متاحة لهذا المشروع.',
  ERROR_FORBIDDEN: 'هذه العملية خاصة بمشغّل الخدمة.',
  ERROR_NOT_FOUND: 'المورد المطلوب غير موجود.',
  ERROR_PAYLOAD_TOO_LARGE: 'نص الطلب كبير جدًا.',
  ERROR_UNSUPPORTED_MEDIA_TYPE: 'يجب أن يكون نص الطلب بتنسيق JSON.',
  ERROR_RATE_LIMIT: 'طلبات كثيرة جدًا. حاول مرة أخرى بعد {retry_after} ثانية.',
  ERROR_INTERNAL: 'حدث خطأ داخلي.',
  ERROR_PROJECT_LOOKUP_FAILED: 'تعذر تحميل المشروع.',
  ERROR_MAINTENANCE: 'الخدمة قيد الصيانة.',
  ERROR_RATE_LIMIT_UNAVAILABLE: 'لا يمكن التحقق من حدود الاستخدام الآن. حاول بعد قليل.',
  ERROR_SERVICE_UNAVAILABLE: 'الخدمة غير متاحة مؤقتًا. حاول بعد قليل.',
  ERROR_REQUEST_TIMEOUT: 'استغرق وصول الطلب وقتًا طويلاً.',
  ERROR_REQUEST_HEADERS_TOO_LARGE: 'سطر الطلب أو الترويسات كبيرة جدًا.',
  ERROR_WEBHOOK_NOT_FOUND: 'لم يتم العثور على الخطاف الإلكتروني (webhook).',
  webhooks_limit: 'يمكن أن يحتوي المشروع على {max} من الخطافات الإلكترونية (webhooks) على الأكثر.',
  webhook_url_private: 'يشير الحقل {field} إلى عنوان محلي أو خاص أو عنوان ارتباط محلي.',
  webhook_url_unresolvable: 'تعذر تحليل اسم المضيف في الحقل {field}.',
  duplicate_field: 'قيمة الحقل {field} مستخدمة بالفعل لدى وكيل آخر في المشروع.',
};

const CATALOGUES: Record<Lang, Catalogue> = { en, es, fr, ar };

/** The language of a path segment: `es-MX` counts as `es`; anything else falls back to `en`. */
export function resolveLang(segment: string | undefined): Lang {
  const base = (segment ?? '').toLowerCase().split(/[-_]/)[0];
  return (LANGS as readonly string[]).includes(base) ? (base as Lang) : 'en';
}

export function translate(lang: Lang, message: Message): string {
  const rule = message.key.startsWith('rule.') ? message.key.slice(5) : undefined;
  const template =
    (rule && isRule(rule) ? RULES[lang][rule] : undefined) ?? CATALOGUES[lang][message.key] ?? en[message.key] ?? message.key;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = message.params?.[name] ?? '';
    return Array.isArray(value) ? value.join(LIST_SEPARATOR[lang]) : String(value);
  });
}

/** Keys present in English but missing in another language (a test keeps this empty). */
export function missingTranslations(): string[] {
  return LANGS.flatMap((lang) =>
    Object.keys(en)
      .filter((k) => !(k in CATALOGUES[lang]))
      .map((k) => `${lang}:${k}`),
  );
}
