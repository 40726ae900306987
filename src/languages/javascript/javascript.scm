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

; references (the code graph): calls and `new` by the called name, the class a class extends
(call_expression function: [(identifier) @name (member_expression property: (property_identifier) @name)]) @reference.call
(new_expression constructor: [(identifier) @name (member_expression property: (property_identifier) @name)]) @reference.call
(class_heritage [(identifier) @name (member_expression property: (property_identifier) @name)]) @reference.inherits
