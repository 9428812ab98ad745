import type { Message } from '../errors/app-error.js';

export const LANGS = ['en', 'es', 'fr', 'ar'] as const;
export type Lang = (typeof LANGS)[number];

type Catalogue = Record<string, string>;

const en: Catalogue = {
  invalid_field: 'The field {field} is invalid.',
  required_field: 'The field {field} is required.',
  unknown_field: 'The field {field} is not known.',
  unknown_attribute: 'The attribute {field} cannot be used here.',
  unknown_operator: 'The operator {field} is not supported.',
  malformed_json: 'The value of {field} is not valid JSON.',
  ERROR_VALIDATION: 'The request is invalid.',
  ERROR_RECAPTCHA: 'The reCAPTCHA verification failed.',
  ERROR_BUSINESS_NOT_FOUND: 'The business was not found.',
  ERROR_AI_AGENT_NOT_FOUND: 'The AI agent was not found.',
  ERROR_AI_TEMPLATE_NOT_FOUND: 'The template was not found.',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'The conversation was not found.',
  ERROR_AI_TEMPLATE_NOT_APPROVED: 'The template is not approved.',
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
};

const es: Catalogue = {
  invalid_field: 'El campo {field} no es válido.',
  required_field: 'El campo {field} es obligatorio.',
  unknown_field: 'El campo {field} no existe.',
  unknown_attribute: 'El atributo {field} no se puede usar aquí.',
  unknown_operator: 'El operador {field} no está soportado.',
  malformed_json: 'El valor de {field} no es JSON válido.',
  ERROR_VALIDATION: 'La solicitud no es válida.',
  ERROR_RECAPTCHA: 'La verificación reCAPTCHA falló.',
  ERROR_BUSINESS_NOT_FOUND: 'No se encontró el negocio.',
  ERROR_AI_AGENT_NOT_FOUND: 'No se encontró el agente de IA.',
  ERROR_AI_TEMPLATE_NOT_FOUND: 'No se encontró la plantilla.',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'No se encontró la conversación.',
  ERROR_AI_TEMPLATE_NOT_APPROVED: 'La plantilla no está aprobada.',
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
};

const fr: Catalogue = {
  invalid_field: "Le champ {field} n'est pas valide.",
  required_field: 'Le champ {field} est obligatoire.',
  unknown_field: "Le champ {field} n'existe pas.",
  unknown_attribute: "L'attribut {field} ne peut pas être utilisé ici.",
  unknown_operator: "L'opérateur {field} n'est pas pris en charge.",
  malformed_json: "La valeur de {field} n'est pas un JSON valide.",
  ERROR_VALIDATION: "La requête n'est pas valide.",
  ERROR_RECAPTCHA: 'La vérification reCAPTCHA a échoué.',
  ERROR_BUSINESS_NOT_FOUND: "L'établissement est introuvable.",
  ERROR_AI_AGENT_NOT_FOUND: "L'agent IA est introuvable.",
  ERROR_AI_TEMPLATE_NOT_FOUND: 'Le modèle est introuvable.',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'La conversation est introuvable.',
  ERROR_AI_TEMPLATE_NOT_APPROVED: "Le modèle n'est pas approuvé.",
  ERROR_AI_PROVIDER_REJECTED: 'Le fournisseur a refusé la requête : {detail}',
  ERROR_AI_PROVIDER_UNAVAILABLE: "Le fournisseur n'est pas disponible. Réessayez plus tard.",
  ERROR_AI_PROVIDER_NOT_CONFIGURED: "L'agent IA n'a pas d'identifiants de fournisseur utilisables.",
  body_parameters_count: 'Le corps du modèle nécessite exactement {expected} paramètres.',
  translations_updated: 'Les traductions ont été mises à jour.',
  translations_copied: 'Les traductions ont été copiées.',
  ERROR_AI_AGENT_DISABLED: "L'agent IA est désactivé.",
  ERROR_UNAUTHORIZED: "L'authentification est requise.",
  ERROR_INVALID_CREDENTIALS: "Les identifiants ne sont pas valides.",
  ERROR_PROJECT_NOT_FOUND: "Le projet n'existe pas.",
  ERROR_PROJECT_SUBSCRIPTION_INACTIVE: "Le projet n'a pas d'abonnement actif.",
  ERROR_AI_MODULE_DISABLED: "Le module IA n'est pas disponible pour ce projet.",
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
};

const ar: Catalogue = {
  invalid_field: 'الحقل {field} غير صالح.',
  required_field: 'الحقل {field} مطلوب.',
  unknown_field: 'الحقل {field} غير معروف.',
  unknown_attribute: 'لا يمكن استخدام السمة {field} هنا.',
  unknown_operator: 'العامل {field} غير مدعوم.',
  malformed_json: 'قيمة {field} ليست JSON صالحًا.',
  ERROR_VALIDATION: 'الطلب غير صالح.',
  ERROR_RECAPTCHA: 'فشل التحقق من reCAPTCHA.',
  ERROR_BUSINESS_NOT_FOUND: 'لم يتم العثور على النشاط التجاري.',
  ERROR_AI_AGENT_NOT_FOUND: 'لم يتم العثور على وكيل الذكاء الاصطناعي.',
  ERROR_AI_TEMPLATE_NOT_FOUND: 'لم يتم العثور على القالب.',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'لم يتم العثور على المحادثة.',
  ERROR_AI_TEMPLATE_NOT_APPROVED: 'القالب غير معتمد.',
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
};

const CATALOGUES: Record<Lang, Catalogue> = { en, es, fr, ar };

/** The language of a path segment: `es-MX` counts as `es`; anything else falls back to `en`. */
export function resolveLang(segment: string | undefined): Lang {
  const base = (segment ?? '').toLowerCase().split(/[-_]/)[0];
  return (LANGS as readonly string[]).includes(base) ? (base as Lang) : 'en';
}

export function translate(lang: Lang, message: Message): string {
  const template = CATALOGUES[lang][message.key] ?? en[message.key] ?? message.key;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => String(message.params?.[name] ?? ''));
}

/** Keys present in English but missing in another language (a test keeps this empty). */
export function missingTranslations(): string[] {
  return LANGS.flatMap((lang) => Object.keys(en).filter((k) => !(k in CATALOGUES[lang])).map((k) => `${lang}:${k}`));
}
