; Definitions of JavaScript source: functions, classes and their methods, functions bound to a name
; (`const f = () => …`, `exports.f = function …`, `Foo.prototype.f = function …`).

[(function_declaration name: (identifier) @name)
 (generator_function_declaration name: (identifier) @name)] @definition.function

(class_declaration name: (identifier) @name) @definition.class

(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(import_statement source: (string) @name) @reference.import
