; Definitions of PHP source: classes, interfaces, traits, enums, their methods, and functions.

[(class_declaration name: (name) @name)
 (interface_declaration name: (name) @name)
 (trait_declaration name: (name) @name)
 (enum_declaration name: (name) @name)] @definition.class

(method_declaration name: (name) @name) @definition.method

(function_definition name: (name) @name) @definition.function

(namespace_use_clause (_) @name) @reference.import
