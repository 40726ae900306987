; Definitions of TypeScript (and TSX) source: the JavaScript definitions plus interfaces, type aliases,
; enums, abstract classes, signatures, and namespaces as qualifiers.

[(function_declaration name: (identifier) @name)
 (generator_function_declaration name: (identifier) @name)
 (function_signature name: (identifier) @name)] @definition.function

[(class_declaration name: (type_identifier) @name)
 (abstract_class_declaration name: (type_identifier) @name)
 (interface_declaration name: (type_identifier) @name)
 (type_alias_declaration name: (type_identifier) @name)
 (enum_declaration name: (identifier) @name)] @definition.class

[(method_definition name: [(property_identifier) (private_property_identifier)] @name)
 (method_signature name: [(property_identifier) (private_property_identifier)] @name)
 (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name)] @definition.method

(internal_module name: (_) @name) @definition.module

(lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(import_statement source: (string) @name) @reference.import

; references (the code graph): calls and `new` by the called name, extended and implemented types
(call_expression function: [(identifier) @name (member_expression property: (property_identifier) @name)]) @reference.call
(new_expression constructor: [(identifier) @name (member_expression property: (property_identifier) @name)]) @reference.call
(extends_clause value: [(identifier) @name (member_expression property: (property_identifier) @name)]) @reference.inherits
(implements_clause [(type_identifier) @name (generic_type name: (type_identifier) @name)]) @reference.inherits
(extends_type_clause type: [(type_identifier) @name (generic_type name: (type_identifier) @name)]) @reference.inherits
