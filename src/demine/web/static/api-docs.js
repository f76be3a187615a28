// The API's interactive documentation, from the server's own copy of Swagger UI (no inline
// script: the page's content security policy allows scripts from the server only).
window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#swagger-ui" });
