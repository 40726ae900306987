; Definitions of PHP source: classes, interfaces, traits, enums, their methods, and functions.

[(class_declaration name: (name) @name)
 (interface_declaration name: (name) @name)
 (trait_declaration name: (name) @name)
 (enum_declaration name: (name) @name)] @definition.class

(method_declaration name: (name) @name) @definition.method

(function_definition name: (name) @name) @definition.function

(namespace_use_clause (_) @name) @reference.import

; references (the code graph): function, method and static calls, `new`, the extended class and interfaces
(function_call_expression function: [(name) @name (qualified_name (name) @name)]) @reference.call
(member_call_expression name: (name) @name) @reference.call
(scoped_call_expression name: (name) @name) @reference.call
(object_creation_expression [(name) @name (qualified_name (name) @name)]) @reference.call
(base_clause [(name) @name (qualified_name (name) @name)]) @reference.inherits
(class_interface_clause [(name) @name (qualified_name (name) @name)]) @reference.inherits
