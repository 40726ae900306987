; Definitions of C++ source: classes/structs (nested ones qualified), namespaces as qualifiers, functions and
; methods, also defined out of class (`void Foo::bar()` -> Foo.bar).

[(class_specifier name: (type_identifier) @name body: (_))
 (struct_specifier name: (type_identifier) @name body: (_))
 (union_specifier name: (type_identifier) @name body: (_))
 (enum_specifier name: (type_identifier) @name body: (_))] @definition.class

(namespace_definition name: (_) @name) @definition.module

(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition
  declarator: [(pointer_declarator (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name))
   (reference_declarator (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name))]) @definition.function

(preproc_include path: (_) @name) @reference.import

; references (the code graph): calls by the called name, base classes
(call_expression function: [(identifier) @name (field_expression field: (field_identifier) @name) (qualified_identifier name: (identifier) @name)]) @reference.call
(base_class_clause [(type_identifier) @name (qualified_identifier name: (type_identifier) @name)]) @reference.inherits
