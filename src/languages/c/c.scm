; Definitions of C source: functions (also returning pointers) and named or typedef'd structs, unions, enums
; with a body.

(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

[(struct_specifier name: (type_identifier) @name body: (_))
 (union_specifier name: (type_identifier) @name body: (_))
 (enum_specifier name: (type_identifier) @name body: (_))] @definition.class

(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_)) (enum_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.class

(preproc_include path: (_) @name) @reference.import

; references (the code graph): calls by the called name
(call_expression function: [(identifier) @name (field_expression field: (field_identifier) @name)]) @reference.call
